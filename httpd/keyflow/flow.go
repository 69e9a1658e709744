package keyflow

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io"
	"log"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	kmail "github.com/vspec/catalogue/httpd/keyflow/mail"
	"github.com/vspec/catalogue/httpd/ratelog"
)

// Config wires the flow.
type Config struct {
	Keys   access.Backend
	Mailer kmail.Sender
	// DNSServer is the host:port of the DNS server the mail-exchanger
	// check asks (-dns.server); empty asks the system's resolver.
	DNSServer string
	// Resolver, when set, is asked instead of the one DNSServer names.
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
	// Dev is the local mode of a development machine (catalogued -dev):
	// the mail-exchanger check is skipped, with a warning logged for each
	// request, and each activation link is printed on Console, so that a
	// machine without DNS or a mail relay still gets a demo key. Never in
	// production: any address at any domain passes.
	Dev bool
	// Console receives the activation links in Dev mode. Default
	// os.Stdout.
	Console io.Writer
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
	if cfg.Resolver == nil {
		cfg.Resolver = NewResolver(cfg.DNSServer)
	}
	if cfg.Console == nil {
		cfg.Console = os.Stdout
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
	if f.cfg.Dev {
		slog.Warn("local mode (-dev): the mail domain of a demo-key request was not checked", "domain", domain)
	} else if p := f.checkDomain(ctx, domain); p != nil {
		return VerificationSent{}, p
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
	link := f.Link(token)
	msg := kmail.Message{From: f.cfg.From, To: email, Subject: "Activate your demo key", Date: now,
		Text: "Hello,\n\nopen this link within 3 days to activate your demo key of the vehicle catalogue API:\n\n" + link +
			"\n\nThe page asks you to confirm; your key is issued when you do, shown on that page once and mailed to you. Opening the link alone changes nothing.\n\nIf you did not ask for a key, ignore this message.\n",
		HTML: "<p>Hello,</p><p>open this link within 3 days to activate your demo key of the vehicle catalogue API:</p><p><a href=\"" +
			html.EscapeString(link) + "\">" + html.EscapeString(link) + "</a></p><p>The page asks you to confirm; your key is issued when you do, shown on that page once and mailed to you. Opening the link alone changes nothing.</p><p>If you did not ask for a key, ignore this message.</p>"}
	err = f.cfg.Mailer.Send(msg)
	if local, ok := f.cfg.Mailer.(interface{ Local() bool }); ok && local.Local() && err == nil {
		// Nobody reads an outbox's mail but the developer at this
		// machine: the link is in the log too, and in local mode on the
		// console with the one-step form that confirms it.
		log.Printf("activation link for %s (mail written to the outbox): %s", email, link)
	}
	if f.cfg.Dev && err == nil {
		fmt.Fprintf(f.cfg.Console, "Activation link for %s (local mode, -dev):\n  %s\nOpen it in a browser and press the button, or confirm it here:\n  curl -s -X POST '%s'\n", email, link, link)
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
	return VerificationSent{Status: "verification_sent", Note: "An activation link was mailed to " + email + ". It expires in 3 days; the key is issued when the link is confirmed (opening it shows a button; POST to the link confirms it at once), once. No key exists until then."}, nil
}

// checkDomain asks the DNS whether domain accepts mail (checkMail) and
// returns the refusal, or nil. Only a real answer that the domain has no
// mail is a 422; a resolver that failed, or that denies every name, is our
// failure (503), never the domain's.
func (f *Flow) checkDomain(ctx context.Context, domain string) *Problem {
	dctx, cancel := context.WithTimeout(ctx, f.cfg.DNSTimeout)
	verdict, err := checkMail(dctx, f.cfg.Resolver, domain)
	cancel()
	switch verdict {
	case noMail:
		return &Problem{Status: 422, Detail: domain + " does not accept email: it has no mail exchanger and no address record."}
	case dnsFailed:
		at := resolverAt(err, f.cfg.DNSServer)
		f.cfg.Log.Printf("dns", "keyflow: cannot check the mail domain %s: the resolver at %s: %v", domain, at, err)
		return &Problem{Status: 503, RetryAfter: 60, Detail: "Could not confirm that " + domain + " accepts mail: the resolver at " + at +
			" did not answer (" + dnsCause(err) + "). Nothing was recorded; retry shortly."}
	case dnsDeniesAll:
		at := resolverAt(err, f.cfg.DNSServer)
		f.cfg.Log.Printf("dns", "keyflow: cannot check the mail domain %s: the resolver at %s says no such domain even for the root zone (no DNS on this machine? -dns.server names another resolver, -dev skips the check on a development machine)", domain, at)
		return &Problem{Status: 503, RetryAfter: 60, Detail: "Could not confirm that " + domain + " accepts mail: the resolver at " + at +
			" did not answer: it says that no domain exists, not even the root zone, so its word on " + domain + " is not an answer. Nothing was recorded; retry later. " +
			"(On a development machine without DNS, start the server with -dev.)"}
	}
	return nil
}

// Link returns the activation link of a token.
func (f *Flow) Link(token string) string { return f.cfg.BaseURL + "/keys/demo/verify?t=" + token }

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

// Activation links survive mail scanners: opening a link (GET or HEAD, by
// a person or a scanner that fetches every link of a message) only shows
// the request (Pending); the key is issued by the confirming POST
// (Redeem), which the link's page sends from its button and an API client
// sends to the link itself.

// PendingKey is the answer to an opened, not yet confirmed link: what
// the confirmation will activate, and how to confirm.
type PendingKey struct {
	Status      string    `json:"status"` // always "pending"
	Email       string    `json:"email"`
	RequestedAt time.Time `json:"requested_at"`
	ExpiresAt   time.Time `json:"expires_at"`
	Confirm     Confirm   `json:"confirm"`
	Note        string    `json:"note"`
}

// Confirm is the request that issues the key: POST to the link.
type Confirm struct {
	Method string `json:"method"`
	Href   string `json:"href"`
}

// Pending handles GET and HEAD of /v1/keys/demo/verify?t=: the request
// the token activates, changing nothing. A link already used, expired or
// unknown is the problem its confirmation would get.
func (f *Flow) Pending(token string) (PendingKey, *Problem) {
	if !ValidToken(token) {
		return PendingKey{}, malformedLink()
	}
	req, err := f.cfg.Keys.PeekDemoToken(access.HashToken(token), f.cfg.Now(), f.cfg.LinkTTL)
	if p := f.linkProblem(err, req, "look up"); p != nil {
		return PendingKey{}, p
	}
	return PendingKey{Status: "pending", Email: req.Email, RequestedAt: req.Created.UTC(), ExpiresAt: req.Created.Add(f.cfg.LinkTTL).UTC(),
		Confirm: Confirm{Method: "POST", Href: f.Link(token)},
		Note:    "Opening this link issues nothing. POST to confirm.href (the page's Activate button does) to issue the demo key of " + req.Email + ": it is shown once, in that answer, and mailed."}, nil
}

// Redeem handles POST /v1/keys/demo/verify?t=: the token is burned and
// the key minted in one transaction; the key is returned once and mailed.
// Of any number of concurrent confirmations exactly one gets the key.
func (f *Flow) Redeem(token, covers string) (IssuedKey, *Problem) {
	if !ValidToken(token) {
		return IssuedKey{}, malformedLink()
	}
	now := f.cfg.Now()
	text, _, req, err := f.cfg.Keys.RedeemDemoToken(access.HashToken(token), now, f.cfg.LinkTTL)
	if p := f.linkProblem(err, req, "issue"); p != nil {
		return IssuedKey{}, p
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

func malformedLink() *Problem {
	return bad("The activation link is not well formed: t must be 48 lowercase hexadecimal characters.")
}

// linkProblem is the refusal of a link the store answered err for (nil:
// none); step says what failed on our side ("look up", "issue").
func (f *Flow) linkProblem(err error, req access.DemoRequest, step string) *Problem {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, access.ErrTokenUsed):
		return &Problem{Status: 409, Detail: "This activation link was already used: the demo key of " + req.Email +
			" was issued then, shown in that answer and mailed to that address. A key is shown once and cannot be issued again; look for the mail \"Your demo key\"."}
	case errors.Is(err, access.ErrTokenUnusable):
		return &Problem{Status: 409, Detail: "This activation link has expired or is unknown (links work for 3 days, until one is confirmed). Request a new one with POST /v1/keys/demo."}
	case errors.Is(err, access.ErrKeyIssued):
		return &Problem{Status: 409, Detail: "A demo key was already issued to this address; it cannot be issued again."}
	}
	f.cfg.Log.Printf("key store", "keyflow: cannot %s an activation token: %v", step, err)
	return &Problem{Status: 503, RetryAfter: 10, Detail: "The key store did not answer; the link still works: retry shortly."}
}
