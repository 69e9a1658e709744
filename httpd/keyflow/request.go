package keyflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// MediaType is the only media type the key request takes. A cross-site
// HTML form can post text/plain, application/x-www-form-urlencoded and
// multipart/form-data without a preflight, never application/json, so
// taking JSON only keeps other sites' pages from posting key requests in a
// visitor's name.
const MediaType = "application/json"

// Request is the body of POST /v1/keys/demo. Pointers tell a missing field
// from an empty one.
type Request struct {
	Email     *string `json:"email"`
	Name      *string `json:"name"`
	Company   *string `json:"company"`
	Website   *string `json:"website"`
	Role      *string `json:"role"`
	UseCase   *string `json:"use_case"`
	AcceptTOS *bool   `json:"accept_tos"`
}

// fields are the members of a Request, as spelled on the wire.
var fields = []string{"email", "name", "company", "website", "role", "use_case", "accept_tos"}

// address is the requester's email address as the flow uses it: the local
// part in lower case and the domain converted to ASCII (IDNA A-labels,
// lower case). The key is recorded for Mailbox, and mail goes to it.
type address struct {
	Mailbox string // local@domain, ASCII only
	Domain  string // the ASCII domain
}

// parseRequest checks the media type and decodes and validates the body:
// 415 for any media type but application/json, 400 for a body or field
// that is malformed, 422 for an email address that is well formed but not
// one mail can be sent to (an IP literal, a single-label or invalid
// domain, a non-ASCII mailbox).
func parseRequest(contentType string, body []byte) (Request, address, *Problem) {
	if p := checkMediaType(contentType); p != nil {
		return Request{}, address{}, p
	}
	r, p := parse(body)
	if p != nil {
		return r, address{}, p
	}
	a, p := normalizeAddress(strings.TrimSpace(*r.Email))
	return r, a, p
}

// checkMediaType accepts application/json in any case, with or without
// parameters (such as charset=utf-8).
func checkMediaType(contentType string) *Problem {
	mt, _, _ := strings.Cut(contentType, ";")
	if strings.EqualFold(strings.TrimSpace(mt), MediaType) {
		return nil
	}
	if strings.TrimSpace(contentType) == "" {
		return &Problem{Status: 415, Detail: "The request has no Content-Type; send the body as " + MediaType + "."}
	}
	return &Problem{Status: 415, Detail: "The request's Content-Type is " + quote(contentType) + "; this endpoint takes " + MediaType + " only."}
}

// parse decodes and validates a request body strictly: one JSON object
// whose member names are exactly the fields (case-sensitive, none twice),
// every field present with the contract's lengths and formats, the text
// fields single lines free of control and format characters, accept_tos
// exactly true.
func parse(body []byte) (Request, *Problem) {
	var r Request
	if !utf8.Valid(body) {
		return r, bad("The body is not valid UTF-8.")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return r, bad("The body is empty; send a JSON object with the fields %s.", fieldList())
	}
	if p := scanMembers(body); p != nil {
		return r, p
	}
	// The member names are now known to be exact and unique, so the
	// decoder's case-insensitive matching and last-duplicate-wins rule
	// cannot apply.
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field == "":
			return r, bad("The body is not a JSON object.")
		case errors.As(err, &te):
			return r, bad("The field %q must be a %s.", te.Field, map[bool]string{true: "boolean", false: "string"}[te.Field == "accept_tos"])
		default:
			return r, bad("The body is not a JSON object: %v.", err)
		}
	}
	str := func(name string, v *string, lo, hi int) *Problem {
		if v == nil {
			return bad("The field %q is required.", name)
		}
		if i, c, ok := controlChar(*v); ok {
			return bad("The field %q must be a single line of plain text; it holds the control or format character %U at character %d.", name, c, i+1)
		}
		n := utf8.RuneCountInString(strings.TrimSpace(*v))
		if n < lo || n > hi {
			if lo > 1 {
				return bad("The field %q must be %d to %d characters long; it has %d.", name, lo, hi, n)
			}
			return bad("The field %q must be at most %d characters long; it has %d.", name, hi, n)
		}
		return nil
	}
	if p := str("email", r.Email, 3, 254); p != nil {
		return r, p
	}
	if p := str("name", r.Name, 2, 120); p != nil {
		return r, p
	}
	if p := str("company", r.Company, 2, 120); p != nil {
		return r, p
	}
	if p := str("website", r.Website, 1, 200); p != nil {
		if r.Website != nil && strings.TrimSpace(*r.Website) == "" && !hasControl(*r.Website) {
			return r, bad("The field %q must not be empty: give the site or app where the data will be used.", "website")
		}
		return r, p
	}
	if p := str("role", r.Role, 2, 80); p != nil {
		return r, p
	}
	if p := str("use_case", r.UseCase, 20, 2000); p != nil {
		return r, p
	}
	if r.AcceptTOS == nil {
		return r, bad("The field %q is required.", "accept_tos")
	}
	if !*r.AcceptTOS {
		return r, bad("The field %q must be true: a key is issued only to those who accept the terms of service.", "accept_tos")
	}
	email := strings.TrimSpace(*r.Email)
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Name != "" || addr.Address != email || strings.LastIndexByte(email, '@') < 1 {
		return r, bad("The field %q is not an email address.", "email")
	}
	w := strings.TrimSpace(*r.Website)
	if !strings.Contains(w, "://") {
		w = "https://" + w
	}
	if u, err := url.Parse(w); err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.Contains(u.Hostname(), ".") || strings.ContainsAny(w, " ") {
		return r, bad("The field %q must be the address of a site or app, such as https://example.org or example.org/app.", "website")
	}
	return r, nil
}

// scanMembers walks the body's tokens before it is decoded: the body must
// be one JSON object whose member names are fields of the request, spelled
// exactly, each at most once. encoding/json alone would match "Email" to
// email and let the last of two "email" members win.
func scanMembers(body []byte) *Problem {
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, err := dec.Token()
	if err != nil {
		return syntaxProblem(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return bad("The body is not a JSON object.")
	}
	seen := make(map[string]bool, len(fields))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return syntaxProblem(err)
		}
		name, _ := tok.(string)
		if !isField(name) {
			for _, f := range fields {
				if strings.EqualFold(f, name) {
					return bad("The body has the member %s; member names are case-sensitive: write %q.", quote(name), f)
				}
			}
			return bad("The body has the unknown field %s; it takes %s.", quote(name), fieldList())
		}
		if seen[name] {
			return bad("The field %q is given more than once.", name)
		}
		seen[name] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return syntaxProblem(err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return syntaxProblem(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return bad("The body holds more than one JSON value.")
	}
	return nil
}

func syntaxProblem(err error) *Problem {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return bad("The body is not a JSON object: it ends before the object does.")
	}
	return bad("The body is not a JSON object: %v.", err)
}

func isField(name string) bool {
	for _, f := range fields {
		if f == name {
			return true
		}
	}
	return false
}

func fieldList() string {
	return strings.Join(fields[:len(fields)-1], ", ") + " and " + fields[len(fields)-1]
}

// controlChar returns the index (in characters) and value of the first
// character of s that has no place in a single line of plain text: a
// control character (Cc: \t, \r, \n, \x00, U+0085 ...), a format character
// (Cf: U+200B, U+202E, U+FEFF ...), or a line or paragraph separator
// (U+2028, U+2029). Plain spaces, including U+00A0, are text.
func controlChar(s string) (int, rune, bool) {
	i := 0
	for _, c := range s {
		if unicode.In(c, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
			return i, c, true
		}
		i++
	}
	return 0, 0, false
}

func hasControl(s string) bool { _, _, ok := controlChar(s); return ok }

// normalizeAddress checks that a syntactically valid address is one mail
// can be sent to and returns its normalised form. Refusals are 422s.
func normalizeAddress(email string) (address, *Problem) {
	at := strings.LastIndexByte(email, '@')
	local, domain := email[:at], email[at+1:]
	unprocessable := func(format string, args ...any) (address, *Problem) {
		return address{}, &Problem{Status: 422, Detail: fmt.Sprintf(format, args...)}
	}
	if strings.HasPrefix(domain, "[") {
		return unprocessable("The email address is at the IP address literal %s; give an address at a domain name.", quote(domain))
	}
	if !isASCII(local) {
		return unprocessable("The part of the email address before the @ must be ASCII: internationalised mailboxes cannot be mailed. Internationalised domain names are fine.")
	}
	ascii, err := idna.Lookup.ToASCII(domain)
	if err != nil {
		return unprocessable("The domain %s of the email address is not a valid domain name (%v).", quote(domain), err)
	}
	ascii = strings.ToLower(ascii)
	if _, err := netip.ParseAddr(ascii); err == nil {
		return unprocessable("The email address is at the IP address %s; give an address at a domain name.", quote(domain))
	}
	labels := strings.Split(ascii, ".")
	if len(labels) == 1 {
		return unprocessable("The domain %s of the email address is a single label, not a full domain name; give an address such as name@company.com.", quote(domain))
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return unprocessable("The domain %s of the email address is not a valid domain name (each label holds 1 to 63 characters).", quote(domain))
		}
	}
	if tld := labels[len(labels)-1]; strings.Trim(tld, "0123456789") == "" {
		return unprocessable("The domain %s of the email address ends in a number: it is an IP address, not a domain name.", quote(domain))
	}
	mailbox := strings.ToLower(local) + "@" + ascii
	if len(ascii) > 253 || len(mailbox) > 254 {
		return unprocessable("The email address is longer than 254 characters once its domain is written in ASCII (%s).", quote(ascii))
	}
	return address{Mailbox: mailbox, Domain: ascii}, nil
}

// quote quotes a string the client sent for a detail, shortened to 64
// characters, with control characters escaped.
func quote(s string) string {
	if utf8.RuneCountInString(s) > 64 {
		s = string([]rune(s)[:64]) + "…"
	}
	return strconv.Quote(s)
}
