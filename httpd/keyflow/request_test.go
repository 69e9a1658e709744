package keyflow

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

func validBody(mod ...func(m map[string]any)) []byte {
	m := map[string]any{"email": "ada@garage-lindqvist.se", "name": "Ada Lindqvist", "company": "Garage Lindqvist AB",
		"website": "https://garage-lindqvist.se", "role": "Developer", "use_case": "Spec sheets on our used-car listings, in Swedish and English.", "accept_tos": true}
	for _, f := range mod {
		f(m)
	}
	b, _ := json.Marshal(m)
	return b
}

func set(k string, v any) func(map[string]any) { return func(m map[string]any) { m[k] = v } }

func wantProblem(t *testing.T, p *Problem, status int, want string) {
	t.Helper()
	if p == nil {
		t.Errorf("accepted, want %d %q", status, want)
		return
	}
	if p.Status != status || !strings.Contains(p.Detail, want) {
		t.Errorf("%d %q, want %d containing %q", p.Status, p.Detail, status, want)
	}
}

func TestMediaType(t *testing.T) {
	for _, ct := range []string{"application/json", "Application/JSON", "application/json; charset=utf-8", "application/json;charset=UTF-8", " application/json "} {
		if _, _, p := parseRequest(ct, validBody()); p != nil {
			t.Errorf("%q: %v", ct, p)
		}
	}
	for ct, want := range map[string]string{
		"":                                  "no Content-Type",
		"text/plain":                        `"text/plain"`,
		"text/plain; charset=utf-8":         "application/json only",
		"application/x-www-form-urlencoded": "application/json only",
		"multipart/form-data; boundary=x":   "application/json only",
		"application/jsonp":                 "application/json only",
		"application/json-patch+json":       "application/json only",
		"application/json\r\nX-Evil: 1":     `\r\n`, // quoted, not echoed raw
	} {
		_, _, p := parseRequest(ct, validBody())
		wantProblem(t, p, 415, want)
	}
}

// TestSingleLineFields refuses control and format characters in every text
// field, wherever they are, naming the field.
func TestSingleLineFields(t *testing.T) {
	for _, field := range []string{"email", "name", "company", "website", "role", "use_case"} {
		for _, c := range []string{"\r", "\n", "\t", "\x00", "\x7f", "\u0085", "\u2028", "\u2029", "\u202e", "\u200b", "\ufeff"} {
			vs := []string{"Bob" + c + c + "URGENT: your account is locked, log in at http://evil.example/login", "abcdefghijklmnopqrstuvwxyz" + c, c + "abcdefghijklmnopqrstuvwxyz"}
			if field == "email" {
				vs = []string{"bob@garage-lindqvist.se" + c, c + "bob@garage-lindqvist.se", "bob" + c + "@garage-lindqvist.se"}
			}
			for _, v := range vs {
				_, p := parse(validBody(set(field, v)))
				wantProblem(t, p, 400, `"`+field+`" must be a single line of plain text`)
			}
		}
	}
	// Spaces, including no-break spaces, and any script are text.
	for _, v := range []string{"Ada Lindqvist", "Ada\u00a0Lindqvist", "Ἀδά Λινδκβιστ", "Ада Линдквист", "リンドクヴィスト"} {
		if _, p := parse(validBody(set("name", v))); p != nil {
			t.Errorf("%q: %v", v, p)
		}
	}
}

// TestMembers refuses what encoding/json would quietly accept: a member
// given twice (the last would win) and a member name in another case (it
// would match the field).
func TestMembers(t *testing.T) {
	b := string(validBody())
	dup := `{"email":"ada@garage-lindqvist.se",` + b[1:]
	_, p := parse([]byte(dup))
	wantProblem(t, p, 400, `"email" is given more than once`)
	// A duplicate spelled with an escape is the same name.
	_, p = parse([]byte(`{"em\u0061il":"x@evil.example",` + b[1:]))
	wantProblem(t, p, 400, `"email" is given more than once`)
	_, p = parse([]byte(strings.Replace(b, `"email"`, `"Email"`, 1)))
	wantProblem(t, p, 400, `"Email"; member names are case-sensitive: write "email"`)
	_, p = parse([]byte(strings.Replace(b, `"use_case"`, `"USE_CASE"`, 1)))
	wantProblem(t, p, 400, `"USE_CASE"`)
	// The Kelvin sign and the long s fold to k and s in encoding/json.
	_, p = parse([]byte(strings.Replace(b, `"use_case"`, `"use_caſe"`, 1)))
	wantProblem(t, p, 400, `"use_caſe"`)
	_, p = parse([]byte(strings.Replace(b, `"accept_tos"`, `"accept_toſ"`, 1)))
	wantProblem(t, p, 400, `"accept_toſ"`)
	_, p = parse([]byte(strings.Replace(b, `{`, `{"extra":1,`, 1)))
	wantProblem(t, p, 400, `unknown field "extra"`)
	for body, want := range map[string]string{
		``:                     "empty",
		` `:                    "empty",
		`{`:                    "not a JSON object",
		`{"email"`:             "not a JSON object",
		`{"email":`:            "not a JSON object",
		`[]`:                   "not a JSON object",
		`"x"`:                  "not a JSON object",
		`null`:                 "not a JSON object",
		`{"email":"a",}`:       "not a JSON object",
		`{} {}`:                "more than one JSON value",
		`{"email":"a@b.se"} x`: "more than one JSON value",
	} {
		_, p := parse([]byte(body))
		wantProblem(t, p, 400, want)
	}
}

// TestAddresses: IP literals and single labels are refused (422),
// internationalised domains are converted to ASCII.
func TestAddresses(t *testing.T) {
	for email, want := range map[string]string{
		"a@127.0.0.1":           "IP address",
		"b@[10.1.2.3]":          "IP address literal",
		"b@10.1.2.3":            "IP address",
		"b@10.1.2":              "ends in a number",
		"a@localhost":           "single label",
		"a@com":                 "single label",
		"a@bü_cher.de":          "not a valid domain name",
		"a@xn--zz.de":           "not a valid domain name",
		"a@-bad.de":             "not a valid domain name",
		"jösé@bücher.de":        "before the @ must be ASCII",
		"a@" + long(64) + ".de": "not a valid domain name",
	} {
		_, _, p := parseRequest("application/json", validBody(set("email", email)))
		wantProblem(t, p, 422, want)
	}
	for email, want := range map[string]string{
		"a@bücher.de":             "a@xn--bcher-kva.de",
		"Ada@BÜCHER.de":           "ada@xn--bcher-kva.de",
		"ada@xn--bcher-kva.de":    "ada@xn--bcher-kva.de",
		"ada@XN--BCHER-KVA.DE":    "ada@xn--bcher-kva.de",
		"ada@straße.de":           "ada@xn--strae-oqa.de",
		"ada@ｍａｉｌ.example.org":    "ada@mail.example.org",
		"ADA@Garage-Lindqvist.SE": "ada@garage-lindqvist.se",
		"a@παράδειγμα.ελ":         "a@xn--hxajbheg2az3al.xn--qxam",
	} {
		_, a, p := parseRequest("application/json", validBody(set("email", email)))
		if p != nil || a.Mailbox != want || a.Domain != want[strings.IndexByte(want, '@')+1:] {
			t.Errorf("%s: %+v %v, want %s", email, a, p, want)
		}
	}
	// Syntax is still a 400.
	for _, email := range []string{"not-an-email", "Ada <ada@garage-lindqvist.se>", "@garage-lindqvist.se", "ab@"} {
		_, _, p := parseRequest("application/json", validBody(set("email", email)))
		wantProblem(t, p, 400, `"email" is not an email address`)
	}
}

func long(n int) string { return strings.Repeat("a", n) }

// FuzzParse feeds arbitrary media types and bodies to the parser: it never
// panics, every refusal is a 400, 415 or 422 with a detail, and what it
// accepts is a complete request of single-line fields with an ASCII
// address at a domain of at least two labels.
func FuzzParse(f *testing.F) {
	f.Add("application/json", validBody())
	f.Add("application/json", validBody(set("email", "a@bücher.de")))
	f.Add("application/json", validBody(set("email", "b@[10.1.2.3]")))
	f.Add("application/json", validBody(set("name", "Bob\r\n\r\nURGENT")))
	f.Add("application/json; charset=utf-8", []byte(`{"email":"a@b.se","email":"c@d.se"}`))
	f.Add("text/plain", validBody())
	f.Add("", []byte(`{"Email":1}`))
	f.Add("application/json", []byte(`{"email":"a@b.se"} {}`))
	f.Add("application/json", []byte(`[{"email":[]}]`))
	f.Add("application/json", []byte("{\"name\":\"\\u2028\"}"))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		r, a, p := parseRequest(contentType, body)
		if p != nil {
			if p.Status != 400 && p.Status != 415 && p.Status != 422 || p.Detail == "" || !utf8.ValidString(p.Detail) {
				t.Fatalf("refusal %d %q", p.Status, p.Detail)
			}
			return
		}
		for name, v := range map[string]*string{"email": r.Email, "name": r.Name, "company": r.Company, "website": r.Website, "role": r.Role, "use_case": r.UseCase} {
			if v == nil || hasControl(*v) {
				t.Fatalf("accepted %s = %q", name, deref(v))
			}
		}
		if r.AcceptTOS == nil || !*r.AcceptTOS {
			t.Fatal("accepted without accept_tos")
		}
		at := strings.LastIndexByte(a.Mailbox, '@')
		if at < 1 || a.Mailbox[at+1:] != a.Domain || !strings.Contains(a.Domain, ".") || len(a.Mailbox) > 254 {
			t.Fatalf("accepted address %+v", a)
		}
		for i := 0; i < len(a.Mailbox); i++ {
			if c := a.Mailbox[i]; c >= utf8.RuneSelf || c < ' ' || c == 0x7f || c >= 'A' && c <= 'Z' {
				t.Fatalf("accepted address %q is not lower-case ASCII", a.Mailbox)
			}
		}
		if back, err := idna.Lookup.ToASCII(a.Domain); err != nil || back != a.Domain {
			t.Fatalf("domain %q is not stable under IDNA: %q %v", a.Domain, back, err)
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestDisposableInASCII: the list writes some domains in Unicode; their
// ASCII form, which is what an address is checked in, is listed too.
func TestDisposableInASCII(t *testing.T) {
	d, err := LoadDisposable()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"instágram.com", "säkerhetsväst.se", "gmaıl.net"} {
		a, err := idna.Lookup.ToASCII(u)
		if err != nil || !d.Contains(u) || !d.Contains(a) || !d.Contains("mx."+a) {
			t.Errorf("%s (%s, %v) is not listed in both forms", u, a, err)
		}
	}
}
