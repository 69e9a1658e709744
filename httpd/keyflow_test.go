package httpd_test

import (
	"encoding/json"
	"fmt"
	"io"
	"mime/quotedprintable"
	"net/netip"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/keyflow"
	"github.com/vspec/catalogue/httpd/keyflow/flowtest"
	"github.com/vspec/catalogue/httpd/keyflow/mail"
)

// flowEnv is a server with the key flow wired to a real SMTP server and a
// real DNS server on loopback, and a clock the test moves.
type flowEnv struct {
	*env
	smtp *flowtest.SMTPServer
	now  atomic.Int64
}

func newFlowEnv(t *testing.T) *flowEnv {
	smtp := flowtest.StartSMTP(t)
	smtp.Username, smtp.Password = "relay-user", "relay-pass"
	dns := flowtest.StartDNS(t, map[string]flowtest.Records{
		"garage-lindqvist.se":  {MX: []string{"mx1.garage-lindqvist.se"}},
		"autohaus-berger.de":   {A: []string{"192.0.2.10"}}, // no MX: the A record is the implicit MX
		"no-mail-here.com":     {MX: []string{"."}},         // a null MX
		"empty-domain.com":     {},                          // exists, no records
		"broken-resolver.org":  {ServFail: true},
		"fleet.mobility.co.uk": {MX: []string{"mail.mobility.co.uk"}},
	})
	disposable, err := keyflow.LoadDisposable()
	if err != nil {
		t.Fatal(err)
	}
	fe := &flowEnv{smtp: smtp}
	fe.now.Store(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, fe.now.Load()) }
	var flow *keyflow.Flow
	fe.env = newEnv(t, func(o *httpd.Options) {
		flow = keyflow.New(keyflow.Config{
			Keys: o.Keys, Disposable: disposable, Resolver: keyflow.NewResolver(dns.Addr),
			Mailer:  &mail.SMTP{Addr: smtp.Addr, Username: "relay-user", Password: "relay-pass", StartTLS: "opportunistic"},
			BaseURL: "https://api.example.org/v1", UpgradeURL: "https://upgrade.example/", From: "Catalogue API <keys@vspec.example>",
			Now: clock,
		})
		o.KeyFlow = flow
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	})
	return fe
}

func (fe *flowEnv) advance(d time.Duration) { fe.now.Add(int64(d)) }

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
			qp, _ := io.ReadAll(quotedprintable.NewReader(strings.NewReader(msgs[i].Data)))
			if m := linkRE.FindStringSubmatch(string(qp)); m != nil {
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
	v := fe.get("/v1/keys/demo/verify?t="+token, "")
	if v.status != 200 || v.header["Cache-Control"] != "no-store" {
		t.Fatalf("verify: %d %s", v.status, v.body)
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
	k, ok := fe.keys.Lookup([]byte(key))
	if !ok || k.Plan != access.PlanDemo || k.Email != "ada@garage-lindqvist.se" {
		t.Fatalf("stored key %+v", k)
	}
	// The link works once; the address gets one key.
	fe.problem(fe.get("/v1/keys/demo/verify?t="+token, ""), 409, "already used or has expired")
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
	// A fresh request gives a fresh link that works.
	if r := fe.post("/v1/keys/demo", body("fleet@fleet.mobility.co.uk"), "198.51.100.1"); r.status != 202 {
		t.Fatalf("second request: %d %s", r.status, r.body)
	}
	if v := fe.get("/v1/keys/demo/verify?t="+fe.lastLink(t, "fleet@fleet.mobility.co.uk"), ""); v.status != 200 {
		t.Errorf("a fresh link: %d %s", v.status, v.body)
	}
}

// TestKeyFlowConcurrentVerify clicks one link 24 times at once: exactly one
// key is minted.
func TestKeyFlowConcurrentVerify(t *testing.T) {
	fe := newFlowEnv(t)
	fe.post("/v1/keys/demo", body("ada@garage-lindqvist.se"), "203.0.113.5")
	token := fe.lastLink(t, "ada@garage-lindqvist.se")
	var minted, refused atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 24; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch r := fe.get("/v1/keys/demo/verify?t="+token, ""); r.status {
			case 200:
				minted.Add(1)
			case 409:
				refused.Add(1)
			default:
				t.Errorf("status %d %s", r.status, r.body)
			}
		}()
	}
	wg.Wait()
	demoKeys := 0
	for _, k := range fe.keys.List() {
		if k.Email == "ada@garage-lindqvist.se" {
			demoKeys++
		}
	}
	if minted.Load() != 1 || refused.Load() != 23 || demoKeys != 1 {
		t.Errorf("%d minted, %d refused, %d keys stored for the address", minted.Load(), refused.Load(), demoKeys)
	}
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
	fe.problem(r, 503, "could not be checked")
	if r.header["Retry-After"] == "" {
		t.Error("503 without Retry-After")
	}
	if len(fe.keys.List()) != 5 { // the env's five keys; failed requests minted nothing
		t.Errorf("%d keys", len(fe.keys.List()))
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
	fe.problem(fe.get("/v1/keys/demo/verify?t="+strings.Repeat("a", 48), ""), 409, "already used or has expired") // well formed, never issued
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

func TestNetwork(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	f := func(peer, xff, want string) {
		t.Helper()
		if got := keyflow.Network(netip.MustParseAddr(peer), xff, trusted); got != want {
			t.Errorf("Network(%s, %q) = %s, want %s", peer, xff, got, want)
		}
	}
	f("203.0.113.9", "", "203.0.113.9")
	f("203.0.113.9", "198.51.100.1", "203.0.113.9") // not a trusted proxy: the header is ignored
	f("10.1.2.3", "198.51.100.1", "198.51.100.1")
	f("10.1.2.3", "198.51.100.1, 10.9.9.9", "198.51.100.1") // right-most untrusted hop
	f("10.1.2.3", "spoofed, 198.51.100.1", "198.51.100.1")
	f("2001:db8:aa:bb:1:2:3:4", "", "2001:db8:aa:bb::/64")
	f("::ffff:203.0.113.9", "", "203.0.113.9")
}
