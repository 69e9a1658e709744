package keyflow

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"log"
	"strings"
	"sync"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	kmail "github.com/vspec/catalogue/httpd/keyflow/mail"
	"github.com/vspec/catalogue/httpd/ratelog"
)

// Config wires the flow.
type Config struct {
	Keys       access.Backend
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
	// Log receives the failures on our side that refuse a request (the
	// key store, DNS, mail) with their cause, at most once a minute per
	// cause. Default ratelog.Default.
	Log *ratelog.Logger
}

// Flow is the demo key flow.
type Flow struct {
	cfg Config

	// withdrawn counts, per network, today's requests withdrawn from the
	// store because their activation mail could not be sent.
	mu           sync.Mutex
	withdrawnDay string
	withdrawn    map[string]int
}

// Bounds of the withdrawals of failed sends: per network and day (so that
// a relay refusing one recipient cannot give one network attempts without
// end), and the networks remembered per day.
const (
	maxWithdrawnPerNetwork = 50
	maxWithdrawnNetworks   = 1 << 16
)

// New returns the flow.
func New(cfg Config) *Flow {
	cfg.PerNetworkPerDay = cmp.Or(cfg.PerNetworkPerDay, 5)
	cfg.LinkTTL = cmp.Or(cfg.LinkTTL, 72*time.Hour)
	cfg.DNSTimeout = cmp.Or(cfg.DNSTimeout, 5*time.Second)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = ratelog.Default
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

// VerificationSent is the 202 answer.
type VerificationSent struct {
	Status string `json:"status"`
	Note   string `json:"note"`
}

// Request handles POST /v1/keys/demo: checks the media type, validates
// the body, checks the address, then records the request (which checks
// the network's daily allowance) and mails the activation link. network
// identifies the client (see Network).
//
// The key is recorded for the normalised address: the local part in lower
// case, the domain in ASCII (IDNA A-labels), so Ada@Bücher.de and
// ada@xn--bcher-kva.de are one address. The mail goes to that address and
// carries nothing else the requester typed.
//
// A request whose mail cannot be sent is answered 503 and does not count
// against the network's allowance; it leaves nothing that blocks a retry.
func (f *Flow) Request(ctx context.Context, contentType string, body []byte, network string) (VerificationSent, *Problem) {
	r, addr, p := parseRequest(contentType, body)
	if p != nil {
		return VerificationSent{}, p
	}
	email, domain := addr.Mailbox, addr.Domain
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
		f.cfg.Log.Printf("dns", "keyflow: cannot check the mail domain %s: %v", domain, err)
		return VerificationSent{}, &Problem{Status: 503, RetryAfter: 60, Detail: "The mail domain " + domain + " could not be checked (" + err.Error() + "). Nothing was recorded; retry shortly."}
	}
	token, err := newToken()
	if err != nil {
		f.cfg.Log.Printf("random", "keyflow: cannot make an activation token: %v", err)
		return VerificationSent{}, &Problem{Status: 503, RetryAfter: 10, Detail: "The request could not be recorded; retry shortly."}
	}
	now := f.cfg.Now().UTC()
	day := now.Format(time.DateOnly)
	rec := access.DemoRequest{Email: email, Name: strings.TrimSpace(*r.Name), Company: strings.TrimSpace(*r.Company), Website: strings.TrimSpace(*r.Website),
		Role: strings.TrimSpace(*r.Role), UseCase: strings.TrimSpace(*r.UseCase), Network: network, Created: now, TOSAccept: now}
	switch err := f.cfg.Keys.RecordDemoRequest(access.HashToken(token), rec, f.cfg.PerNetworkPerDay); {
	case errors.Is(err, access.ErrKeyIssued):
		return VerificationSent{}, &Problem{Status: 409, Detail: "A demo key was already issued to " + email + "; it cannot be resent. Keys are shown once, when the activation link is opened, and mailed once."}
	case errors.Is(err, access.ErrTooManyToday):
		return VerificationSent{}, &Problem{Status: 429, RetryAfter: secondsToMidnight(now), Detail: fmt.Sprintf("More than %d key requests came from your network today; retry tomorrow (UTC).", f.cfg.PerNetworkPerDay)}
	case err != nil:
		f.cfg.Log.Printf("key store", "keyflow: cannot record a key request: %v", err)
		return VerificationSent{}, &Problem{Status: 503, RetryAfter: 10, Detail: "The request could not be recorded; retry shortly."}
	}
	// The mail greets no one by name and carries nothing the requester
	// typed but the address it goes to: a page elsewhere must not be able
	// to have this server mail its text to someone else.
	link := f.cfg.BaseURL + "/keys/demo/verify?t=" + token
	msg := kmail.Message{From: f.cfg.From, To: email, Subject: "Activate your demo key", Date: now,
		Text: "Hello,\n\nopen this link within 3 days to activate your demo key of the vehicle catalogue API:\n\n" + link +
			"\n\nThe link works once. Your key will be shown on that page and mailed to you.\n\nIf you did not ask for a key, ignore this message.\n",
		HTML: "<p>Hello,</p><p>open this link within 3 days to activate your demo key of the vehicle catalogue API:</p><p><a href=\"" +
			html.EscapeString(link) + "\">" + html.EscapeString(link) + "</a></p><p>The link works once. Your key will be shown on that page and mailed to you.</p><p>If you did not ask for a key, ignore this message.</p>"}
	err = f.cfg.Mailer.Send(msg)
	if local, ok := f.cfg.Mailer.(interface{ Local() bool }); ok && local.Local() && err == nil {
		// Nobody reads an outbox's mail but the developer at this
		// machine: the link is in the log too.
		log.Printf("activation link for %s (mail written to the outbox): %s", email, link)
	}
	if err != nil {
		// The request is withdrawn from the store (its link was never
		// delivered, and the network's count goes back down), up to
		// maxWithdrawnPerNetwork times a network a day, so that a relay
		// refusing one recipient cannot give one network endless attempts.
		f.cfg.Log.Printf("mail", "keyflow: cannot mail an activation link: %v", err)
		if f.mayWithdraw(day, network) {
			if werr := f.cfg.Keys.WithdrawDemoRequest(access.HashToken(token)); werr != nil {
				f.cfg.Log.Printf("key store", "keyflow: cannot withdraw a key request whose mail failed: %v", werr)
			}
		}
		return VerificationSent{}, &Problem{Status: 503, RetryAfter: 60, Detail: "The activation email could not be sent, a failure on our side. This attempt does not count against your network's daily allowance: send the request again after the Retry-After delay."}
	}
	return VerificationSent{Status: "verification_sent", Note: "An activation link was mailed to " + email + ". It works once and expires in 3 days. No key exists until it is opened."}, nil
}

// mayWithdraw counts one withdrawal of a failed request of network today
// and reports whether it is within maxWithdrawnPerNetwork (and the day's
// table within maxWithdrawnNetworks). The count is in memory: a restart
// allows that many again, which costs an attacker a failed send each.
func (f *Flow) mayWithdraw(day, network string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.withdrawnDay != day || f.withdrawn == nil {
		f.withdrawnDay, f.withdrawn = day, map[string]int{}
	}
	n, ok := f.withdrawn[network]
	if n >= maxWithdrawnPerNetwork || !ok && len(f.withdrawn) >= maxWithdrawnNetworks {
		return false
	}
	f.withdrawn[network] = n + 1
	return true
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
	case errors.Is(err, access.ErrTokenUsed):
		return IssuedKey{}, &Problem{Status: 409, Detail: "This activation link was already used: the demo key of " + req.Email +
			" was issued then, shown on that page and mailed to that address. A key is shown once and cannot be issued again; look for the mail \"Your demo key\"."}
	case errors.Is(err, access.ErrTokenUnusable):
		return IssuedKey{}, &Problem{Status: 409, Detail: "This activation link has expired or is unknown (links work once, for 3 days). Request a new one with POST /v1/keys/demo."}
	case errors.Is(err, access.ErrKeyIssued):
		return IssuedKey{}, &Problem{Status: 409, Detail: "A demo key was already issued to this address; it cannot be issued again."}
	case err != nil:
		f.cfg.Log.Printf("key store", "keyflow: cannot redeem an activation token: %v", err)
		return IssuedKey{}, &Problem{Status: 503, RetryAfter: 10, Detail: "The key could not be issued; the link still works: retry shortly."}
	}
	k := IssuedKey{APIKey: text, Plan: "demo", Covers: covers, FullCatalogue: f.cfg.UpgradeURL, StartHere: f.cfg.BaseURL + "/demo",
		Note: "This key is shown once and only its hash is stored. A copy was mailed to " + req.Email + ". Send it as X-Api-Key or Authorization: Bearer."}
	msg := kmail.Message{From: f.cfg.From, To: req.Email, Subject: "Your demo key", Date: now,
		Text: "Hello,\n\nyour demo key of the vehicle catalogue API:\n\n" + text + "\n\nIt reaches " + covers + "\nStart here: " + k.StartHere +
			"\nSend it as the X-Api-Key header. Keep it safe: it will not be shown again.\n",
		HTML: "<p>Hello,</p><p>your demo key of the vehicle catalogue API:</p><pre>" + html.EscapeString(text) +
			"</pre><p>It reaches " + html.EscapeString(covers) + "</p><p>Start here: <a href=\"" + html.EscapeString(k.StartHere) + "\">" + html.EscapeString(k.StartHere) +
			"</a>. Send it as the <code>X-Api-Key</code> header. Keep it safe: it will not be shown again.</p>"}
	if err := f.cfg.Mailer.Send(msg); err != nil {
		f.cfg.Log.Printf("mail", "keyflow: cannot mail a copy of a key: %v", err)
	}
	return k, nil
}
