package httpd_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	netmail "net/mail"
	"net/netip"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/httpdtest"
	"github.com/vspec/catalogue/httpd/keyflow"
	"github.com/vspec/catalogue/httpd/keyflow/flowtest"
	"github.com/vspec/catalogue/httpd/keyflow/mail"
	"github.com/vspec/catalogue/httpd/ratelog"
)

// flowEnv is a server with the key flow wired to a real SMTP server and a
// real DNS server on loopback, and a clock the test moves.
type flowEnv struct {
	*env
	smtp    *flowtest.SMTPServer
	now     atomic.Int64
	mailLog *httpdtest.LockedBuffer // what the flow logged of mail failures
}

func newFlowEnv(t *testing.T, mod ...func(*keyflow.Config)) *flowEnv {
	smtp := flowtest.StartSMTP(t)
	smtp.Username, smtp.Password = "relay-user", "relay-pass"
	dns := flowtest.StartDNS(t, map[string]flowtest.Records{
		"garage-lindqvist.se":  {MX: []string{"mx1.garage-lindqvist.se"}},
		"autohaus-berger.de":   {A: []string{"192.0.2.10"}}, // no MX: the A record is the implicit MX
		"no-mail-here.com":     {MX: []string{"."}},         // a null MX
		"empty-domain.com":     {},                          // exists, no records
		"broken-resolver.org":  {ServFail: true},
		"fleet.mobility.co.uk": {MX: []string{"mail.mobility.co.uk"}},
		"xn--bcher-kva.de":     {MX: []string{"mx.xn--bcher-kva.de"}}, // bücher.de
	})
	disposable, err := keyflow.LoadDisposable()
	if err != nil {
		t.Fatal(err)
	}
	fe := &flowEnv{smtp: smtp, mailLog: &httpdtest.LockedBuffer{}}
	fe.now.Store(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, fe.now.Load()) }
	fe.env = newEnv(t, func(o *httpd.Options) {
		cfg := keyflow.Config{
			Keys: o.Keys, Disposable: disposable, DNSServer: dns.Addr,
			Mailer:  &mail.SMTP{Addr: smtp.Addr, Username: "relay-user", Password: "relay-pass", StartTLS: "opportunistic"},
			BaseURL: "https://api.example.org/v1", UpgradeURL: "https://upgrade.example/", From: "Catalogue API <keys@vspec.example>",
			Now: clock, Log: ratelog.New(log.New(fe.mailLog, "", 0), time.Minute),
		}
		for _, f := range mod {
			f(&cfg)
		}
		o.KeyFlow = keyflow.New(cfg)
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	})
	return fe
}

func (fe *flowEnv) advance(d time.Duration) { fe.now.Add(int64(d)) }

// confirm confirms an activation link, as its page's button or an API
// client does: POST to the link, no body.
func (fe *flowEnv) confirm(token string, headers ...string) resp {
	fe.t.Helper()
	return fe.do("POST", "/v1/keys/demo/verify?t="+token, "", headers...)
}

func body(email string, mod ...func(m map[string]any)) string {
	m := map[string]any{"email": email, "name": "Ada Lindqvist", "company": "Garage Lindqvist AB", "website": "https://garage-lindqvist.se",
		"role": "Developer", "use_case": "Spec sheets on our used-car listings, in Swedish and English.", "accept_tos": true}
	for _, f := range mod {
		f(m)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// post sends a key request from a client network (X-Forwarded-For, the
// test's loopback peer being a trusted proxy).
func (fe *flowEnv) post(path, body, network string) resp {
	fe.t.Helper()
	return fe.do("POST", path, "", "Content-Type", "application/json", "X-Forwarded-For", network, "X-Test-Body", body)
}

var linkRE = regexp.MustCompile(`https://api\.example\.org/v1/keys/demo/verify\?t=([0-9a-f]{48})`)

func (fe *flowEnv) lastLink(t *testing.T, to string) string {
	t.Helper()
	msgs := fe.smtp.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if len(msgs[i].To) == 1 && msgs[i].To[0] == to {
			// The text part carries the link as it is, copyable from the raw
			// message (no quoted-printable "t=3D…" or soft line breaks).
			if m := linkRE.FindStringSubmatch(msgs[i].Data); m != nil {
				return m[1]
			}
		}
	}
	t.Fatalf("no activation link mailed to %s", to)
	return ""
}

func TestKeyFlow(t *testing.T) {
	fe := newFlowEnv(t)
	r := fe.post("/v1/keys/demo", body("ada@garage-lindqvist.se"), "203.0.113.5")
	if r.status != 202 {
		t.Fatalf("request: %d %s", r.status, r.body)
	}
	if d := r.json(t)["data"].(map[string]any); d["status"] != "verification_sent" || !strings.Contains(str(d, "note"), "No key exists until") {
		t.Errorf("202 body %v", d)
	}
	// The mail is a real RFC 5322 multipart message with both parts.
	msgs := fe.smtp.Messages()
	if len(msgs) != 1 || msgs[0].Msg == nil || !strings.HasPrefix(msgs[0].Msg.Header.Get("Content-Type"), "multipart/alternative") ||
		!strings.Contains(msgs[0].Data, "text/plain") || !strings.Contains(msgs[0].Data, "text/html") || msgs[0].From != "keys@vspec.example" {
		t.Fatalf("activation mail %+v", msgs)
	}
	token := fe.lastLink(t, "ada@garage-lindqvist.se")
	// Opening the link shows the request and how to confirm it.
	opened := fe.get("/v1/keys/demo/verify?t="+token, "")
	if opened.status != 200 || opened.header["Cache-Control"] != "no-store" {
		t.Fatalf("open: %d %s", opened.status, opened.body)
	}
	pending := opened.json(t)["data"].(map[string]any)
	confirm, _ := pending["confirm"].(map[string]any)
	if pending["status"] != "pending" || pending["email"] != "ada@garage-lindqvist.se" || str(pending, "expires_at") != "2026-11-23T09:00:00Z" ||
		str(confirm, "method") != "POST" || str(confirm, "href") != "https://api.example.org/v1/keys/demo/verify?t="+token || bytes.Contains(opened.body, []byte("vsc_demo_")) {
		t.Fatalf("the opened link: %s", opened.body)
	}
	v := fe.confirm(token)
	if v.status != 200 || v.header["Cache-Control"] != "no-store" {
		t.Fatalf("confirm: %d %s", v.status, v.body)
	}
	issued := v.json(t)["data"].(map[string]any)
	key := str(issued, "api_key")
	if !regexp.MustCompile(`^vsc_demo_[0-9a-f]{48}$`).MatchString(key) || issued["plan"] != "demo" || !strings.Contains(str(issued, "covers"), "40 cars") ||
		str(issued, "start_here") != "https://api.example.org/v1/demo" || str(issued, "full_catalogue") != "https://upgrade.example/" {
		t.Fatalf("issued key %v", issued)
	}
	// The key works (on the demo tier) and a copy was mailed.
	if d := fe.ok("/v1/demo", key); d["data"].(map[string]any)["variant_count"] != float64(40) {
		t.Error("the issued key does not reach the demo set")
	}
	if last := fe.smtp.Messages()[len(fe.smtp.Messages())-1]; !strings.Contains(last.Data, key) || last.To[0] != "ada@garage-lindqvist.se" {
		t.Error("no copy of the key was mailed")
	}
	// Only the key's hash is stored.
	k, err := fe.keys.Lookup([]byte(key))
	if err != nil || k.Plan != access.PlanDemo || k.Email != "ada@garage-lindqvist.se" {
		t.Fatalf("stored key %+v", k)
	}
	// The link works once; the address gets one key.
	// A used link says the key was issued to that address, not "request a
	// new one" (a new request would say it was issued anyway), whether it
	// is opened or confirmed again.
	fe.problem(fe.confirm(token), 409, "already used: the demo key of ada@garage-lindqvist.se was issued")
	fe.problem(fe.get("/v1/keys/demo/verify?t="+token, ""), 409, "already used: the demo key of ada@garage-lindqvist.se was issued")
	fe.problem(fe.post("/v1/keys/demo", body("ADA@garage-lindqvist.se"), "203.0.113.6"), 409, "cannot be resent")
	fe.problem(fe.post("/v1/keys", body("ada@garage-lindqvist.se"), "203.0.113.7"), 409, "cannot be resent")
}

func TestKeyFlowLinkExpires(t *testing.T) {
	fe := newFlowEnv(t)
	if r := fe.post("/v1/keys", body("fleet@fleet.mobility.co.uk"), "198.51.100.1"); r.status != 202 {
		t.Fatalf("request through the alias: %d %s", r.status, r.body)
	}
	token := fe.lastLink(t, "fleet@fleet.mobility.co.uk")
	fe.advance(72*time.Hour + time.Second)
	fe.problem(fe.get("/v1/keys/demo/verify?t="+token, ""), 409, "expired")
	fe.problem(fe.confirm(token), 409, "expired")
	// A fresh request gives a fresh link that works.
	if r := fe.post("/v1/keys/demo", body("fleet@fleet.mobility.co.uk"), "198.51.100.1"); r.status != 202 {
		t.Fatalf("second request: %d %s", r.status, r.body)
	}
	if v := fe.confirm(fe.lastLink(t, "fleet@fleet.mobility.co.uk")); v.status != 200 {
		t.Errorf("a fresh link: %d %s", v.status, v.body)
	}
}

// TestKeyFlowConcurrentVerify: a link opened 24 times at once (scanners,
// GET and HEAD) issues nothing; confirmed 24 times at once, it mints
// exactly one key.
func TestKeyFlowConcurrentVerify(t *testing.T) {
	fe := newFlowEnv(t)
	fe.post("/v1/keys/demo", body("ada@garage-lindqvist.se"), "203.0.113.5")
	token := fe.lastLink(t, "ada@garage-lindqvist.se")
	var n atomic.Int32
	opened := concurrently(t, 24, 1, func() resp {
		return fe.do([]string{"GET", "HEAD"}[n.Add(1)%2], "/v1/keys/demo/verify?t="+token, "")
	}, 200)
	statuses := concurrently(t, 24, 1, func() resp { return fe.confirm(token) }, 200, 409)
	demoKeys := 0
	list, _ := fe.keys.List()
	for _, k := range list {
		if k.Email == "ada@garage-lindqvist.se" {
			demoKeys++
		}
	}
	if minted, refused := statuses[200], statuses[409]; opened[200] != 24 || minted != 1 || refused != 23 || demoKeys != 1 {
		t.Errorf("%d of 24 openings answered, %d minted, %d refused, %d keys stored for the address", opened[200], minted, refused, demoKeys)
	}
}

// TestActivationSurvivesScanners: what a mail scanner does with a link (a
// HEAD, GETs without cookies, a browser-like GET) uses nothing up; the
// person's confirmation then gets the key, and a double click of the
// button gets the key once and a page naming the address.
func TestActivationSurvivesScanners(t *testing.T) {
	fe := newFlowEnv(t)
	fe.post("/v1/keys/demo", body("ada@garage-lindqvist.se"), "203.0.113.5")
	token := fe.lastLink(t, "ada@garage-lindqvist.se")
	link := "/v1/keys/demo/verify?t=" + token
	if h := fe.do("HEAD", link, ""); h.status != 200 || len(h.body) != 0 {
		t.Fatalf("HEAD of the link: %d %q", h.status, h.body)
	}
	for range 3 { // no Cookie header: nothing is remembered between requests
		if r := fe.get(link, "", "Accept", "*/*"); r.status != 200 || bytes.Contains(r.body, []byte("vsc_demo_")) {
			t.Fatalf("a scanner's GET: %d %s", r.status, r.body)
		}
	}
	browser := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	if r := fe.get(link, "", "Accept", browser); r.status != 200 || bytes.Contains(r.body, []byte("vsc_demo_")) {
		t.Fatalf("a scanner's browser-like GET: %d %s", r.status, r.body)
	}
	if n := len(fe.smtp.Messages()); n != 1 {
		t.Fatalf("%d messages after the openings, want the link's only", n)
	}
	first := fe.confirm(token, "Accept", browser, "Content-Type", "application/x-www-form-urlencoded")
	second := fe.confirm(token, "Accept", browser, "Content-Type", "application/x-www-form-urlencoded")
	if first.status != 200 || !regexp.MustCompile(`vsc_demo_[0-9a-f]{48}`).Match(first.body) {
		t.Fatalf("the confirmation: %d %s", first.status, first.body)
	}
	if second.status != 409 || !bytes.Contains(second.body, []byte("ada@garage-lindqvist.se")) || bytes.Contains(second.body, []byte("vsc_demo_")) {
		t.Errorf("the double click's second POST: %d %s", second.status, second.body)
	}
	fe.problem(fe.confirm(token, "X-Test-Body", "t"), 413, "takes no body")
}

func TestKeyFlowDomains(t *testing.T) {
	fe := newFlowEnv(t)
	ok := func(email string) {
		t.Helper()
		if r := fe.post("/v1/keys/demo", body(email), "192.0.2."+fmt.Sprint(len(email))); r.status != 202 {
			t.Errorf("%s: %d %s", email, r.status, r.body)
		}
	}
	ok("b.berger@autohaus-berger.de") // A record only: the implicit MX
	for email, want := range map[string]string{
		"x@mailinator.com":         "disposable",
		"x@eu.mailinator.com":      "disposable", // a sub-domain of a listed domain
		"x@example.com":            "reserved",
		"x@shop.test":              "reserved",
		"x@localhost.localhost":    "reserved",
		"x@no-mail-here.com":       "does not accept email",
		"x@empty-domain.com":       "does not accept email",
		"x@nowhere-at-all-xyz.com": "does not accept email", // NXDOMAIN
	} {
		fe.problem(fe.post("/v1/keys/demo", body(email), "192.0.2.77"), 422, want)
	}
	r := fe.post("/v1/keys/demo", body("x@broken-resolver.org"), "192.0.2.78")
	fe.problem(r, 503, "Could not confirm that broken-resolver.org accepts mail: the resolver at 127.0.0.1:")
	fe.problem(r, 503, "did not answer (server misbehaving)")
	if r.header["Retry-After"] == "" {
		t.Error("503 without Retry-After")
	}
	if list, _ := fe.keys.List(); len(list) != 5 { // the env's five keys; failed requests minted nothing
		t.Errorf("%d keys", len(list))
	}
}

func TestKeyFlowValidation(t *testing.T) {
	fe := newFlowEnv(t)
	f := func(b, want string) {
		t.Helper()
		fe.problem(fe.post("/v1/keys/demo", b, "192.0.2.1"), 400, want)
	}
	f(`{`, "not a JSON object")
	f(`[]`, "not a JSON object")
	f(`{"email":"a@b.se"} {}`, "more than one JSON value")
	for _, field := range []string{"email", "name", "company", "website", "role", "use_case", "accept_tos"} {
		f(body("ada@garage-lindqvist.se", func(m map[string]any) { delete(m, field) }), `"`+field+`" is required`)
	}
	f(body("ada@garage-lindqvist.se", func(m map[string]any) { m["extra"] = 1 }), `unknown field "extra"`)
	f(body("ada@garage-lindqvist.se", func(m map[string]any) { m["accept_tos"] = false }), `"accept_tos" must be true`)
	f(body("ada@garage-lindqvist.se", func(m map[string]any) { m["accept_tos"] = "true" }), `"accept_tos" must be a boolean`)
	f(body("ada@garage-lindqvist.se", func(m map[string]any) { m["name"] = 42 }), `"name" must be a string`)
	f(body("ada@garage-lindqvist.se", func(m map[string]any) { m["name"] = "A" }), `"name" must be 2 to 120 characters`)
	f(body("ada@garage-lindqvist.se", func(m map[string]any) { m["company"] = strings.Repeat("x", 121) }), `"company" must be 2 to 120`)
	f(body("ada@garage-lindqvist.se", func(m map[string]any) { m["role"] = strings.Repeat("é", 81) }), `"role" must be 2 to 80`)
	f(body("ada@garage-lindqvist.se", func(m map[string]any) { m["use_case"] = "too short" }), `"use_case" must be 20 to 2000`)
	f(body("ada@garage-lindqvist.se", func(m map[string]any) { m["website"] = strings.Repeat("w", 201) }), `"website" must be at most 200`)
	f(body("ada@garage-lindqvist.se", func(m map[string]any) { m["website"] = "not a site" }), `"website" must be the address`)
	f(body("not-an-email"), `"email" is not an email address`)
	f(body("Ada <ada@garage-lindqvist.se>"), `"email" is not an email address`)
	fe.problem(fe.get("/v1/keys/demo/verify?t=XYZ", ""), 400, "not well formed")
	fe.problem(fe.get("/v1/keys/demo/verify", ""), 400, "not well formed")
	fe.problem(fe.get("/v1/keys/demo/verify?t="+strings.Repeat("A", 48), ""), 400, "not well formed")
	fe.problem(fe.get("/v1/keys/demo/verify?t="+strings.Repeat("a", 48), ""), 409, "expired or is unknown") // well formed, never issued
}

// TestKeyFlowNetworkLimit allows five requests per network per day: a
// client's IPv4 address, or its IPv6 /64.
func TestKeyFlowNetworkLimit(t *testing.T) {
	fe := newFlowEnv(t)
	for i := 0; i < 5; i++ {
		if r := fe.post("/v1/keys/demo", body(fmt.Sprintf("dev%d@garage-lindqvist.se", i)), "2001:db8:1:2::"+fmt.Sprint(i+1)); r.status != 202 {
			t.Fatalf("request %d: %d %s", i, r.status, r.body)
		}
	}
	r := fe.post("/v1/keys/demo", body("dev9@garage-lindqvist.se"), "2001:db8:1:2:ffff::9") // same /64
	fe.problem(r, 429, "More than 5 key requests came from your network today")
	if r.header["Retry-After"] == "" {
		t.Error("429 without Retry-After")
	}
	if r := fe.post("/v1/keys/demo", body("dev9@garage-lindqvist.se"), "2001:db8:1:3::1"); r.status != 202 { // another /64
		t.Errorf("another network: %d", r.status)
	}
	fe.advance(24 * time.Hour)
	if r := fe.post("/v1/keys/demo", body("dev10@garage-lindqvist.se"), "2001:db8:1:2::1"); r.status != 202 {
		t.Errorf("the next day: %d", r.status)
	}
}

func TestKeyFlowRecordFailure(t *testing.T) {
	fe := newFlowEnv(t)
	fe.keys.Close() // the store fails: nothing can be recorded
	r := fe.post("/v1/keys/demo", body("ada@garage-lindqvist.se"), "203.0.113.5")
	fe.problem(r, 503, "could not be recorded")
	if len(fe.smtp.Messages()) != 0 {
		t.Error("a link was mailed for a request that was not recorded")
	}
}

// send posts body with the header lines given as name, value pairs, each
// added as a line of its own (a name may repeat) and no Content-Type unless
// given.
func (e *env) send(path, body string, lines ...string) resp {
	e.t.Helper()
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.Header.SetMethod("POST")
	req.Header.SetNoDefaultContentType(true)
	req.SetRequestURI("http://" + e.addr + path)
	for i := 0; i+1 < len(lines); i += 2 {
		req.Header.Add(lines[i], lines[i+1])
	}
	req.SetBodyString(body)
	if err := fasthttp.DoTimeout(req, res, 10*time.Second); err != nil {
		e.t.Fatalf("POST %s: %v", path, err)
	}
	e.validate(e.t, req, res)
	r := resp{status: res.StatusCode(), header: map[string]string{}, body: append([]byte(nil), res.Body()...)}
	for k, v := range res.Header.All() {
		r.header[string(k)] = string(v)
	}
	return r
}

// decoded returns a received message's headers and its parts, each
// decoded by its Content-Transfer-Encoding.
func decoded(m flowtest.Received) string {
	msg, err := netmail.ReadMessage(strings.NewReader(m.Data))
	if err != nil {
		return m.Data
	}
	var out strings.Builder
	for k, v := range msg.Header {
		out.WriteString(k + ": " + strings.Join(v, ", ") + "\n")
	}
	_, params, _ := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	parts := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := parts.NextRawPart()
		if err != nil {
			break
		}
		var r io.Reader = p
		if p.Header.Get("Content-Transfer-Encoding") == "quoted-printable" {
			r = quotedprintable.NewReader(p)
		}
		b, _ := io.ReadAll(r)
		out.Write(b)
	}
	return out.String()
}

// TestKeyRequestMediaType takes application/json only: a cross-site HTML
// form can post text/plain, form-urlencoded and multipart without a
// preflight, never JSON.
func TestKeyRequestMediaType(t *testing.T) {
	fe := newFlowEnv(t)
	for i, ct := range []string{"", "text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp"} {
		var lines []string
		if ct != "" {
			lines = []string{"Content-Type", ct}
		}
		path := []string{"/v1/keys/demo", "/v1/keys"}[i%2]
		r := fe.send(path, body("ada@garage-lindqvist.se"), append(lines, "X-Forwarded-For", "203.0.113.5")...)
		fe.problem(r, 415, "application/json")
		if r.header["Accept-Post"] != "application/json" {
			t.Errorf("%q: Accept-Post %q", ct, r.header["Accept-Post"])
		}
	}
	if n := len(fe.smtp.Messages()); n != 0 {
		t.Fatalf("%d messages sent for refused requests", n)
	}
	// The media type is compared case-insensitively; parameters are allowed.
	for i, ct := range []string{"Application/JSON; charset=utf-8", "application/json;charset=UTF-8"} {
		r := fe.send("/v1/keys/demo", body(fmt.Sprintf("dev%d@garage-lindqvist.se", i)), "Content-Type", ct, "X-Forwarded-For", "203.0.113.5")
		if r.status != 202 {
			t.Errorf("%q: %d %s", ct, r.status, r.body)
		}
	}
}

// TestKeyRequestSingleLine: the text fields are single lines free of
// control and format characters, so that none can carry a message of its
// own (and nothing is mailed for them).
func TestKeyRequestSingleLine(t *testing.T) {
	fe := newFlowEnv(t)
	lure := "Bob\r\n\r\nURGENT: your account is locked. Log in at http://evil.example/login"
	for field, v := range map[string]string{
		"name": lure, "company": "Evil\nCorp", "role": "Dev\u2028eloper", "website": "evil.example/\tlogin",
		"use_case": "Read this first:\u202e nigol/elpmaxe.live//:ptth", "email": "ada@garage-lindqvist.se\r\nBcc: x@evil.example",
	} {
		r := fe.post("/v1/keys/demo", body("ada@garage-lindqvist.se", func(m map[string]any) { m[field] = v }), "203.0.113.5")
		fe.problem(r, 400, `"`+field+`" must be a single line`)
	}
	if n := len(fe.smtp.Messages()); n != 0 {
		t.Fatalf("%d messages sent for refused requests", n)
	}
}

// TestKeyMailCarriesOnlyTheAddress: the activation mail and the key copy
// greet no one by name and carry no company, role, website or use case.
func TestKeyMailCarriesOnlyTheAddress(t *testing.T) {
	fe := newFlowEnv(t)
	typed := map[string]string{"name": "Mallory Lure", "company": "Login Here Ltd", "role": "Account Recovery Desk",
		"website": "evil.example/login", "use_case": "URGENT: verify your account at http://evil.example/login today"}
	r := fe.post("/v1/keys/demo", body("ada@garage-lindqvist.se", func(m map[string]any) {
		for k, v := range typed {
			m[k] = v
		}
	}), "203.0.113.5")
	if r.status != 202 {
		t.Fatalf("request: %d %s", r.status, r.body)
	}
	token := fe.lastLink(t, "ada@garage-lindqvist.se")
	if v := fe.confirm(token); v.status != 200 {
		t.Fatalf("verify: %d %s", v.status, v.body)
	}
	msgs := fe.smtp.Messages()
	if len(msgs) != 2 {
		t.Fatalf("%d messages, want the activation link and the key copy", len(msgs))
	}
	for i, m := range msgs {
		text := decoded(m)
		for field, v := range typed {
			for _, word := range []string{v, strings.Fields(v)[0]} {
				if strings.Contains(text, word) {
					t.Errorf("message %d carries the %s the requester typed (%q):\n%s", i, field, word, text)
				}
			}
		}
		if strings.Contains(text, "evil.example") {
			t.Errorf("message %d carries a link the requester typed:\n%s", i, text)
		}
		if !strings.Contains(text, "Hello,") || len(m.To) != 1 || m.To[0] != "ada@garage-lindqvist.se" {
			t.Errorf("message %d to %v:\n%s", i, m.To, text)
		}
	}
}

// TestKeyRequestMembers refuses what encoding/json would quietly accept.
func TestKeyRequestMembers(t *testing.T) {
	fe := newFlowEnv(t)
	b := body("ada@garage-lindqvist.se")
	fe.problem(fe.post("/v1/keys/demo", `{"email":"victim@autohaus-berger.de",`+b[1:], "203.0.113.5"), 400, `"email" is given more than once`)
	fe.problem(fe.post("/v1/keys/demo", strings.Replace(b, `"email"`, `"Email"`, 1), "203.0.113.5"), 400, `"Email"`)
	fe.problem(fe.post("/v1/keys/demo", strings.Replace(b, `"accept_tos"`, `"ACCEPT_TOS"`, 1), "203.0.113.5"), 400, `"ACCEPT_TOS"`)
	if n := len(fe.smtp.Messages()); n != 0 {
		t.Fatalf("%d messages sent for refused requests", n)
	}
}

// TestKeyFlowAddresses: IP literals and single-label domains are refused;
// an internationalised domain is checked and mailed in ASCII, and the key
// is recorded for the normalised address.
func TestKeyFlowAddresses(t *testing.T) {
	fe := newFlowEnv(t)
	for email, want := range map[string]string{
		"a@127.0.0.1":            "IP address",
		"b@[10.1.2.3]":           "IP address literal",
		"b@10.1.2.3":             "IP address",
		"a@localhost":            "single label",
		"a@com":                  "single label",
		"a@bü_cher.de":           "not a valid domain name",
		"x@instágram.com":        "disposable", // listed in Unicode, checked in ASCII
		"x@xn--instgram-cza.com": "disposable",
	} {
		fe.problem(fe.post("/v1/keys/demo", body(email), "192.0.2.1"), 422, want)
	}
	r := fe.post("/v1/keys/demo", body("Ada@Bücher.de"), "192.0.2.2")
	if r.status != 202 || !strings.Contains(string(r.body), "ada@xn--bcher-kva.de") {
		t.Fatalf("an internationalised domain: %d %s", r.status, r.body)
	}
	v := fe.confirm(fe.lastLink(t, "ada@xn--bcher-kva.de"))
	if v.status != 200 {
		t.Fatalf("verify: %d %s", v.status, v.body)
	}
	k, err := fe.keys.Lookup([]byte(str(v.json(t)["data"].(map[string]any), "api_key")))
	if err != nil || k.Email != "ada@xn--bcher-kva.de" {
		t.Fatalf("stored key %+v", k)
	}
	// Either spelling of the domain is the same address.
	fe.problem(fe.post("/v1/keys/demo", body("ada@xn--bcher-kva.de"), "192.0.2.3"), 409, "already issued")
	fe.problem(fe.post("/v1/keys/demo", body("ada@bücher.de"), "192.0.2.3"), 409, "already issued")
}

// TestKeyFlowMailOutage: a request whose mail cannot be sent is a 503 with
// Retry-After that does not consume the network's allowance, leaves nothing
// that blocks a retry, and is logged with its cause once a minute.
func TestKeyFlowMailOutage(t *testing.T) {
	fe := newFlowEnv(t)
	fe.smtp.Fail("451 4.3.0 mail system unavailable")
	for i := 0; i < 8; i++ {
		r := fe.post("/v1/keys/demo", body("ada@garage-lindqvist.se"), "203.0.113.5")
		fe.problem(r, 503, "does not count against your network's daily allowance")
		if r.header["Retry-After"] == "" {
			t.Fatal("503 without Retry-After")
		}
	}
	if logged := fe.mailLog.String(); strings.Count(logged, "\n") != 1 || !strings.Contains(logged, "451") || !strings.Contains(logged, "mail system unavailable") || !strings.HasPrefix(logged, "mail: ") {
		t.Errorf("mail failures logged as:\n%s", logged)
	}
	fe.smtp.Fail("")
	r := fe.post("/v1/keys/demo", body("ada@garage-lindqvist.se"), "203.0.113.5")
	if r.status != 202 {
		t.Fatalf("after the outage: %d %s", r.status, r.body)
	}
	if v := fe.confirm(fe.lastLink(t, "ada@garage-lindqvist.se")); v.status != 200 {
		t.Fatalf("verify after the outage: %d %s", v.status, v.body)
	}
	// The allowance is intact (four more) and still enforced.
	for i := 0; i < 4; i++ {
		if r := fe.post("/v1/keys/demo", body(fmt.Sprintf("dev%d@garage-lindqvist.se", i)), "203.0.113.5"); r.status != 202 {
			t.Fatalf("request %d after the outage: %d %s", i, r.status, r.body)
		}
	}
	fe.problem(fe.post("/v1/keys/demo", body("dev9@garage-lindqvist.se"), "203.0.113.5"), 429, "More than 5 key requests")
	if n := len(fe.smtp.Messages()); n != 6 { // one link and one key copy, then four links
		t.Errorf("%d messages", n)
	}
}

// TestKeyFlowForwardedForLines: behind a trusted proxy the client writes
// the first X-Forwarded-For line and the proxy appends its own; the lines
// are read as one list, so the line the client writes cannot choose the
// network.
func TestKeyFlowForwardedForLines(t *testing.T) {
	fe := newFlowEnv(t)
	for i := 0; i < 6; i++ {
		r := fe.send("/v1/keys/demo", body(fmt.Sprintf("dev%d@garage-lindqvist.se", i)), "Content-Type", "application/json",
			"X-Forwarded-For", fmt.Sprintf("192.0.2.%d", i+1), // written by the client
			"X-Forwarded-For", "203.0.113.5") // appended by the proxy
		if i < 5 && r.status != 202 {
			t.Fatalf("request %d: %d %s", i, r.status, r.body)
		}
		if i == 5 {
			fe.problem(r, 429, "More than 5 key requests came from your network today")
		}
	}
}

// TestPaidLimitForwardedForLines: the per-network limit of paid calls reads
// every X-Forwarded-For line too (it is checked before the payment is
// decoded, so a payment that does not decode counts).
func TestPaidLimitForwardedForLines(t *testing.T) {
	e := newEnv(t)
	e2 := newEnvWith(t, e, func(o *httpd.Options) {
		o.PaidLimiter = access.NewNetworkLimiter(2)
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
		o.Now = func() time.Time { return time.Date(2030, 1, 1, 12, 0, 30, 0, time.UTC) } // one minute throughout
	})
	for i := 0; i < 3; i++ {
		req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		req.SetRequestURI("http://" + e2.addr + "/v1/search?q=golf")
		req.Header.Add("PAYMENT-SIGNATURE", "bm90IGEgcGF5bWVudA==")
		req.Header.Add("X-Forwarded-For", fmt.Sprintf("192.0.2.%d", i+1))
		req.Header.Add("X-Forwarded-For", "203.0.113.5")
		if err := fasthttp.DoTimeout(req, res, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		status := res.StatusCode()
		fasthttp.ReleaseRequest(req)
		fasthttp.ReleaseResponse(res)
		if i < 2 && status == 429 || i == 2 && status != 429 {
			t.Fatalf("paid call %d: %d", i, status)
		}
	}
}

// TestActivationInBrowser: a person opening the link gets a page showing
// the request and a button, and no key; pressing it, a page with the key;
// opening the link again, a page saying the key was issued to the address.
func TestActivationInBrowser(t *testing.T) {
	fe := newFlowEnv(t)
	if r := fe.post("/v1/keys/demo", body("ada@garage-lindqvist.se"), "203.0.113.5"); r.status != 202 {
		t.Fatalf("request: %d %s", r.status, r.body)
	}
	token := fe.lastLink(t, "ada@garage-lindqvist.se")
	browser := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	r := fe.get("/v1/keys/demo/verify?t="+token, "", "Accept", browser)
	form := `<form method="post" action="?t=` + token + `"><button type="submit">`
	if r.status != 200 || !strings.HasPrefix(r.header["Content-Type"], "text/html") || !bytes.Contains(r.body, []byte(form)) ||
		!bytes.Contains(r.body, []byte("ada@garage-lindqvist.se")) || bytes.Contains(r.body, []byte("vsc_demo_")) || bytes.Contains(r.body, []byte("<script")) {
		t.Fatalf("the activation page: %d %s\n%s", r.status, r.header["Content-Type"], r.body)
	}
	r = fe.confirm(token, "Accept", browser, "Content-Type", "application/x-www-form-urlencoded")
	if r.status != 200 || !strings.HasPrefix(r.header["Content-Type"], "text/html") || !regexp.MustCompile(`vsc_demo_[0-9a-f]{48}`).Match(r.body) ||
		bytes.Contains(r.body, []byte("<script")) {
		t.Fatalf("the page after the button: %d %s\n%s", r.status, r.header["Content-Type"], r.body)
	}
	r = fe.get("/v1/keys/demo/verify?t="+token, "", "Accept", browser)
	if r.status != 409 || !strings.HasPrefix(r.header["Content-Type"], "text/html") || !bytes.Contains(r.body, []byte("ada@garage-lindqvist.se")) {
		t.Errorf("the used link in a browser: %d %s\n%s", r.status, r.header["Content-Type"], r.body)
	}
}

// TestKeyFlowResolverDeniesAll: a resolver that says no domain exists,
// the root zone included (a machine without DNS), is our failure, a 503
// naming it, never a 422 blaming the mail domain; local mode (-dev) skips
// the check and prints the activation link.
func TestKeyFlowResolverDeniesAll(t *testing.T) {
	denied := flowtest.StartDeniedDNS(t)
	fe := newFlowEnv(t, func(c *keyflow.Config) { c.DNSServer = denied.Addr })
	r := fe.post("/v1/keys/demo", body("dev@gmail.com"), "192.0.2.90")
	fe.problem(r, 503, "Could not confirm that gmail.com accepts mail: the resolver at "+denied.Addr+" did not answer")
	if r.header["Retry-After"] == "" || len(fe.smtp.Messages()) != 0 {
		t.Errorf("Retry-After %q, %d messages", r.header["Retry-After"], len(fe.smtp.Messages()))
	}
	console := &httpdtest.LockedBuffer{}
	dev := newFlowEnv(t, func(c *keyflow.Config) { c.DNSServer, c.Dev, c.Console = denied.Addr, true, console })
	if r := dev.post("/v1/keys/demo", body("dev@gmail.com"), "192.0.2.91"); r.status != 202 {
		t.Fatalf("local mode: %d %s", r.status, r.body)
	}
	token := dev.lastLink(t, "dev@gmail.com")
	if !strings.Contains(console.String(), "https://api.example.org/v1/keys/demo/verify?t="+token) ||
		!strings.Contains(console.String(), "curl -s -X POST 'https://api.example.org/v1/keys/demo/verify?t="+token+"'") {
		t.Errorf("local mode printed:\n%s", console.String())
	}
	// The address rules still hold in local mode.
	dev.problem(dev.post("/v1/keys/demo", body("x@mailinator.com"), "192.0.2.92"), 422, "disposable")
}
