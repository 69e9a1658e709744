package keyflow

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vspec/catalogue/httpd/access"
	kmail "github.com/vspec/catalogue/httpd/keyflow/mail"
)

// Config wires the flow.
type Config struct {
	Keys       *access.Store
	Mailer     kmail.Sender
	Resolver   Resolver
	Disposable *Disposable
	// BaseURL is the public URL of the API, ending in /v1; activation
	// links and the key's start_here point into it.
	BaseURL string
	// UpgradeURL is where full_catalogue points.
	UpgradeURL string
	// From is the sender of the emails.
	From string
	// PerNetworkPerDay bounds key requests per network per day. Default 5.
	PerNetworkPerDay int
	// LinkTTL is how long an activation link works. Default 3 days.
	LinkTTL time.Duration
	// DNSTimeout bounds the mail-exchanger check. Default 5 s.
	DNSTimeout time.Duration
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Log receives mail delivery failures that do not change a response.
	Log *log.Logger
}

// Flow is the demo key flow.
type Flow struct{ cfg Config }

// New returns the flow.
func New(cfg Config) *Flow {
	if cfg.PerNetworkPerDay == 0 {
		cfg.PerNetworkPerDay = 5
	}
	if cfg.LinkTTL == 0 {
		cfg.LinkTTL = 72 * time.Hour
	}
	if cfg.DNSTimeout == 0 {
		cfg.DNSTimeout = 5 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = log.Default()
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Flow{cfg: cfg}
}

// Problem is a refusal: an HTTP status and a detail naming what was wrong.
type Problem struct {
	Status     int
	Detail     string
	RetryAfter int // seconds, 0 = none
}

func (p *Problem) Error() string { return fmt.Sprintf("%d: %s", p.Status, p.Detail) }

func bad(format string, args ...any) *Problem {
	return &Problem{Status: 400, Detail: fmt.Sprintf(format, args...)}
}

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

// VerificationSent is the 202 answer.
type VerificationSent struct {
	Status string `json:"status"`
	Note   string `json:"note"`
}

// parse decodes and validates a request body strictly: JSON object, no
// unknown or repeated fields, every field present with the contract's
// lengths and formats, accept_tos exactly true.
func parse(body []byte) (Request, *Problem) {
	var r Request
	if !utf8.Valid(body) {
		return r, bad("The body is not valid UTF-8.")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field == "":
			return r, bad("The body is not a JSON object.")
		case errors.As(err, &te):
			return r, bad("The field %q must be a %s.", te.Field, map[bool]string{true: "boolean", false: "string"}[te.Field == "accept_tos"])
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return r, bad("The body has the unknown field %s; it takes email, name, company, website, role, use_case and accept_tos.", strings.TrimPrefix(err.Error(), "json: unknown field "))
		default:
			return r, bad("The body is not a JSON object: %v.", err)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return r, bad("The body holds more than one JSON value.")
	}
	str := func(name string, v *string, lo, hi int) *Problem {
		if v == nil {
			return bad("The field %q is required.", name)
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
		if r.Website != nil && strings.TrimSpace(*r.Website) == "" {
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
	addr, err := mail.ParseAddress(strings.TrimSpace(*r.Email))
	at := strings.LastIndexByte(strings.TrimSpace(*r.Email), '@')
	if err != nil || addr.Name != "" || addr.Address != strings.TrimSpace(*r.Email) || at < 1 || !strings.Contains((*r.Email)[at:], ".") {
		return r, bad("The field %q is not an email address.", "email")
	}
	w := strings.TrimSpace(*r.Website)
	if !strings.Contains(w, "://") {
		w = "https://" + w
	}
	if u, err := url.Parse(w); err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.Contains(u.Hostname(), ".") || strings.ContainsAny(w, " \t\n") {
		return r, bad("The field %q must be the address of a site or app, such as https://example.org or example.org/app.", "website")
	}
	return r, nil
}

// Request handles POST /v1/keys/demo: validates the body, checks the
// network's daily allowance and the address, records the request, then
// mails the activation link. network identifies the client (see Network).
func (f *Flow) Request(ctx context.Context, body []byte, network string) (VerificationSent, *Problem) {
	r, p := parse(body)
	if p != nil {
		return VerificationSent{}, p
	}
	email := strings.ToLower(strings.TrimSpace(*r.Email))
	domain := email[strings.LastIndexByte(email, '@')+1:]
	if reserved(domain) {
		return VerificationSent{}, &Problem{Status: 422, Detail: domain + " is a reserved domain that cannot receive email."}
	}
	if f.cfg.Disposable.Contains(domain) {
		return VerificationSent{}, &Problem{Status: 422, Detail: domain + " is a disposable email domain; use an address you keep."}
	}
	dctx, cancel := context.WithTimeout(ctx, f.cfg.DNSTimeout)
	verdict, err := checkMail(dctx, f.cfg.Resolver, domain)
	cancel()
	switch verdict {
	case noMail:
		return VerificationSent{}, &Problem{Status: 422, Detail: domain + " does not accept email: it has no mail exchanger and no address record."}
	case dnsFailed:
		return VerificationSent{}, &Problem{Status: 503, RetryAfter: 60, Detail: "The mail domain " + domain + " could not be checked (" + err.Error() + "). Nothing was recorded; retry shortly."}
	}
	token, err := newToken()
	if err != nil {
		return VerificationSent{}, &Problem{Status: 503, RetryAfter: 10, Detail: "The request could not be recorded; retry shortly."}
	}
	now := f.cfg.Now().UTC()
	rec := access.DemoRequest{Email: email, Name: strings.TrimSpace(*r.Name), Company: strings.TrimSpace(*r.Company), Website: strings.TrimSpace(*r.Website),
		Role: strings.TrimSpace(*r.Role), UseCase: strings.TrimSpace(*r.UseCase), Network: network, Created: now, TOSAccept: now}
	switch err := f.cfg.Keys.RecordDemoRequest(access.HashToken(token), rec, f.cfg.PerNetworkPerDay); {
	case errors.Is(err, access.ErrKeyIssued):
		return VerificationSent{}, &Problem{Status: 409, Detail: "A demo key was already issued to " + email + "; it cannot be resent. Keys are shown once, when the activation link is opened, and mailed once."}
	case errors.Is(err, access.ErrTooManyToday):
		return VerificationSent{}, &Problem{Status: 429, RetryAfter: secondsToMidnight(now), Detail: fmt.Sprintf("More than %d key requests came from your network today; retry tomorrow (UTC).", f.cfg.PerNetworkPerDay)}
	case err != nil:
		f.cfg.Log.Printf("keyflow: cannot record a key request: %v", err)
		return VerificationSent{}, &Problem{Status: 503, RetryAfter: 10, Detail: "The request could not be recorded; retry shortly."}
	}
	link := f.cfg.BaseURL + "/keys/demo/verify?t=" + token
	msg := kmail.Message{From: f.cfg.From, To: email, Subject: "Activate your demo key", Date: now,
		Text: "Hello " + rec.Name + ",\n\nopen this link within 3 days to activate your demo key of the vehicle catalogue API:\n\n" + link +
			"\n\nThe link works once. Your key will be shown on that page and mailed to you.\n\nIf you did not ask for a key, ignore this message.\n",
		HTML: "<p>Hello " + html.EscapeString(rec.Name) + ",</p><p>open this link within 3 days to activate your demo key of the vehicle catalogue API:</p><p><a href=\"" +
			html.EscapeString(link) + "\">" + html.EscapeString(link) + "</a></p><p>The link works once. Your key will be shown on that page and mailed to you.</p><p>If you did not ask for a key, ignore this message.</p>"}
	if err := f.cfg.Mailer.Send(msg); err != nil {
		f.cfg.Log.Printf("keyflow: cannot mail the activation link to %s: %v", email, err)
		return VerificationSent{}, &Problem{Status: 503, RetryAfter: 60, Detail: "The request was recorded but the activation email could not be sent; send the request again shortly."}
	}
	return VerificationSent{Status: "verification_sent", Note: "An activation link was mailed to " + email + ". It works once and expires in 3 days. No key exists until it is opened."}, nil
}

func secondsToMidnight(now time.Time) int {
	next := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
	return int(next.Sub(now).Seconds()) + 1
}

func newToken() (string, error) {
	var raw [24]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(raw[:]), nil
}

// IssuedKey is the answer to a redeemed link: shown once.
type IssuedKey struct {
	APIKey        string `json:"api_key"`
	Plan          string `json:"plan"`
	Covers        string `json:"covers"`
	FullCatalogue string `json:"full_catalogue"`
	StartHere     string `json:"start_here"`
	Note          string `json:"note"`
}

// ValidToken reports whether t has the form of an activation token.
func ValidToken(t string) bool {
	if len(t) != 48 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Verify handles GET /v1/keys/demo/verify?t=: the token is burned and the
// key minted in one transaction; the key is returned once and mailed.
func (f *Flow) Verify(token, covers string) (IssuedKey, *Problem) {
	if !ValidToken(token) {
		return IssuedKey{}, bad("The activation link is not well formed: t must be 48 lowercase hexadecimal characters.")
	}
	now := f.cfg.Now()
	text, _, req, err := f.cfg.Keys.RedeemDemoToken(access.HashToken(token), now, f.cfg.LinkTTL)
	switch {
	case errors.Is(err, access.ErrTokenUnusable):
		return IssuedKey{}, &Problem{Status: 409, Detail: "This activation link was already used or has expired (links work once, for 3 days). Request a new one with POST /v1/keys/demo."}
	case errors.Is(err, access.ErrKeyIssued):
		return IssuedKey{}, &Problem{Status: 409, Detail: "A demo key was already issued to this address; it cannot be issued again."}
	case err != nil:
		f.cfg.Log.Printf("keyflow: cannot redeem an activation token: %v", err)
		return IssuedKey{}, &Problem{Status: 503, RetryAfter: 10, Detail: "The key could not be issued; the link still works: retry shortly."}
	}
	k := IssuedKey{APIKey: text, Plan: "demo", Covers: covers, FullCatalogue: f.cfg.UpgradeURL, StartHere: f.cfg.BaseURL + "/demo",
		Note: "This key is shown once and only its hash is stored. A copy was mailed to " + req.Email + ". Send it as X-Api-Key or Authorization: Bearer."}
	msg := kmail.Message{From: f.cfg.From, To: req.Email, Subject: "Your demo key", Date: now,
		Text: "Hello " + req.Name + ",\n\nyour demo key of the vehicle catalogue API:\n\n" + text + "\n\nIt reaches " + covers + "\nStart here: " + k.StartHere +
			"\nSend it as the X-Api-Key header. Keep it safe: it will not be shown again.\n",
		HTML: "<p>Hello " + html.EscapeString(req.Name) + ",</p><p>your demo key of the vehicle catalogue API:</p><pre>" + html.EscapeString(text) +
			"</pre><p>It reaches " + html.EscapeString(covers) + "</p><p>Start here: <a href=\"" + html.EscapeString(k.StartHere) + "\">" + html.EscapeString(k.StartHere) +
			"</a>. Send it as the <code>X-Api-Key</code> header. Keep it safe: it will not be shown again.</p>"}
	if err := f.cfg.Mailer.Send(msg); err != nil {
		f.cfg.Log.Printf("keyflow: cannot mail the key copy to %s: %v", req.Email, err)
	}
	return k, nil
}
