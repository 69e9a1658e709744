// Package statetest is the conformance suite of the access state: one
// table of behaviours that every state.Store must show, run against the
// embedded store (package state's tests) and against Redis (package
// redisstore's tests, built with the tag redis). Counts are checked
// exactly under concurrency: N allowed, the N+1st refused.
package statetest

import (
	"crypto/rand"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/state"
	"github.com/vspec/catalogue/httpd/x402"
	"github.com/vspec/catalogue/httpd/x402/eip3009"
)

// Open returns a fresh, empty store for one test; the suite closes it.
type Open func(t *testing.T) state.Store

// Run runs every behaviour against stores from open.
func Run(t *testing.T, open Open) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { s.Close() })
			c.run(t, s)
		})
	}
}

var cases = []struct {
	name string
	run  func(t *testing.T, s state.Store)
}{
	{"Keys", keys},
	{"MeterExactUnderConcurrency", meterExact},
	{"FullWindowCountsNothing", fullWindow},
	{"ReleaseGivesBack", release},
	{"NetworkWindow", networkWindow},
	{"DemoRequestPerNetworkPerDay", demoPerNetwork},
	{"ConcurrentClicksMintOneKey", concurrentClicks},
	{"OneKeyPerEmail", oneKeyPerEmail},
	{"ExpiredAndWithdrawnTokens", expiredTokens},
	{"PeekChangesNothing", peekTokens},
	{"NonceClaimedOnce", nonceOnce},
	{"Receipts", receipts},
	{"PaymentRecords", paymentRecords},
}

// Workers is how many goroutines the concurrent cases run.
const Workers = 50

func keys(t *testing.T, s state.Store) {
	text, k, err := s.Create(access.PlanApify, access.StateActive, " Ops@Example.org ", "pilot")
	if err != nil {
		t.Fatal(err)
	}
	if k.Email != "ops@example.org" {
		t.Errorf("email %q not normalised", k.Email)
	}
	got, err := s.Lookup([]byte(text))
	if err != nil || got.Plan != access.PlanApify || got.State != access.StateActive || got.Note != "pilot" {
		t.Fatalf("Lookup: %+v, %v", got, err)
	}
	if _, err := s.Lookup([]byte(text + "x")); !errors.Is(err, access.ErrNotFound) {
		t.Errorf("Lookup of a wrong key: %v, want ErrNotFound", err)
	}
	if f, err := s.Find(k.Hash.String()[:10]); err != nil || f.Hash != k.Hash {
		t.Errorf("Find by hash prefix: %v, %v", f, err)
	}
	if f, err := s.Find(text); err != nil || f.Hash != k.Hash {
		t.Errorf("Find by text: %v, %v", f, err)
	}
	if _, err := s.Find("abc"); err == nil {
		t.Error("Find took a 3-digit prefix")
	}
	text2, _, err := s.Create(access.PlanDemo, access.StatePending, "", "")
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err != nil || len(list) != 2 || list[0].Hash != k.Hash {
		t.Fatalf("List: %d keys (%v), want 2 oldest first", len(list), err)
	}
	if _, err := s.SetState(k.Hash.String()[:12], access.StateRevoked); err != nil {
		t.Fatal(err)
	}
	WaitRevoked(t, s, text)
	if got, err := s.Lookup([]byte(text2)); err != nil || got.State != access.StatePending || got.Plan != access.PlanDemo {
		t.Errorf("the other key: %+v, %v", got, err)
	}
	if _, err := s.SetState("vsc_apify_00", access.StateActive); !errors.Is(err, access.ErrNotFound) {
		t.Errorf("SetState of an unknown key: %v", err)
	}
}

// WaitRevoked waits until s sees the key text revoked, and fails the test
// with what s still sees when that takes more than a second: a shared
// store's replicas cache key records until the server invalidates them,
// and a revoke must hold within a second, everywhere.
func WaitRevoked(t testing.TB, s access.Backend, text string) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		got, err := s.Lookup([]byte(text))
		if err == nil && got.State == access.StateRevoked {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a second after the revoke: %+v, %v", got, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// NewKey creates an active key of the plan, with no email or note, and
// fails the test if it cannot. It returns the key's text and record.
func NewKey(t testing.TB, s access.Backend, plan access.Plan) (string, *access.Key) {
	t.Helper()
	text, k, err := s.Create(plan, access.StateActive, "", "")
	if err != nil {
		t.Fatal(err)
	}
	return text, k
}

// freshMinute waits, when the minute is about to end, for the next one,
// so that a case counting in the minute window stays in one window (it
// takes well under a second). At most 12 s.
func freshMinute() {
	if s := time.Now().Second(); s >= 48 {
		time.Sleep(time.Duration(61-s) * time.Second)
	}
}

// reserveConcurrently makes attempts reservations from Workers goroutines
// and returns the tickets granted and the refusals with their windows.
func reserveConcurrently(t *testing.T, s state.Store, k *access.Key, lim *access.Limits, attempts int) ([]access.Ticket, map[access.Window]int) {
	var mu sync.Mutex
	var granted []access.Ticket
	refused := map[access.Window]int{}
	var wg sync.WaitGroup
	next := make(chan struct{}, attempts)
	for range attempts {
		next <- struct{}{}
	}
	close(next)
	for range Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				tk, full, ok, err := s.Reserve(k, time.Now(), lim)
				mu.Lock()
				switch {
				case err != nil:
					t.Error(err)
				case ok:
					granted = append(granted, tk)
				default:
					refused[full]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return granted, refused
}

// successes makes call from Workers goroutines at once and counts the
// calls that returned true; an error fails t.
func successes(t *testing.T, call func() (bool, error)) int {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for range Workers {
		wg.Go(func() {
			ok, err := call()
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			if ok {
				n++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	return n
}

func meterExact(t *testing.T, s state.Store) {
	_, k := NewKey(t, s, access.PlanApify)
	const n = 120
	lim := access.Limits{n, 1 << 20, 1 << 20}
	freshMinute()
	granted, refused := reserveConcurrently(t, s, k, &lim, 3*n)
	if len(granted) != n || refused[access.Minute] != 2*n {
		t.Fatalf("%d granted, %v refused; want %d granted and %d refused in the minute", len(granted), refused, n, 2*n)
	}
	seen := map[int64]bool{}
	for _, tk := range granted {
		seen[tk.Used[access.Minute]] = true
	}
	if len(seen) != n {
		t.Errorf("the tickets carry %d distinct minute counts, want %d (1..%d, once each)", len(seen), n, n)
	}
	for w := access.Minute; w <= access.Month; w++ {
		if got, err := s.Used(k, w, time.Now()); err != nil || got != n {
			t.Errorf("%s window: %d counted (%v), want %d", w, got, err, n)
		}
	}
	if _, full, ok, err := s.Reserve(k, time.Now(), &lim); ok || err != nil || full != access.Minute {
		t.Errorf("call %d: ok %v, full %s, %v; want refused in the minute", n+1, ok, full, err)
	}
}

func fullWindow(t *testing.T, s state.Store) {
	_, k := NewKey(t, s, access.PlanDemo)
	lim := access.Limits{100, 3, 100}
	freshMinute()
	for i := range 3 {
		if _, _, ok, err := s.Reserve(k, time.Now(), &lim); !ok || err != nil {
			t.Fatalf("call %d refused: %v", i+1, err)
		}
	}
	for range 5 {
		if _, full, ok, err := s.Reserve(k, time.Now(), &lim); ok || err != nil || full != access.Day {
			t.Fatalf("over the day limit: ok %v, full %s, %v", ok, full, err)
		}
	}
	for w, want := range map[access.Window]int64{access.Minute: 3, access.Day: 3, access.Month: 3} {
		if got, _ := s.Used(k, w, time.Now()); got != want {
			t.Errorf("%s: %d counted after refusals, want %d (a refused call counts in no window)", w, got, want)
		}
	}
}

func release(t *testing.T, s state.Store) {
	_, k := NewKey(t, s, access.PlanApify)
	lim := access.Limits{2, 100, 100}
	freshMinute()
	t1, _, _, _ := s.Reserve(k, time.Now(), &lim)
	t2, _, ok, _ := s.Reserve(k, time.Now(), &lim)
	if !ok || t1.Used[access.Minute] != 1 || t2.Used[access.Minute] != 2 || t2.Remaining(access.Minute, &lim) != 0 {
		t.Fatalf("tickets %v %v", t1.Used, t2.Used)
	}
	t2.Release()
	if got, _ := s.Used(k, access.Month, time.Now()); got != 1 {
		t.Errorf("after a release: %d counted, want 1", got)
	}
	if _, _, ok, _ := s.Reserve(k, time.Now(), &lim); !ok {
		t.Error("the released place was not given back")
	}
}

func networkWindow(t *testing.T, s state.Store) {
	l := s.NetworkLimiter("test", 7)
	if l.Limit() != 7 {
		t.Errorf("Limit %d", l.Limit())
	}
	freshMinute()
	allowed := successes(t, func() (bool, error) {
		ok, _, err := l.Allow("203.0.113.7", time.Now())
		return ok, err
	})
	if allowed != 7 {
		t.Errorf("%d of %d concurrent calls allowed, want 7", allowed, Workers)
	}
	if ok, wait, err := l.Allow("203.0.113.7", time.Now()); ok || err != nil || wait <= 0 || wait > 62*time.Second {
		t.Errorf("call 8: ok %v, wait %s, %v", ok, wait, err)
	}
	if ok, _, _ := l.Allow("203.0.113.8", time.Now()); !ok {
		t.Error("another network was refused")
	}
}

func demoRequest(email, network string) access.DemoRequest {
	now := time.Now().UTC()
	return access.DemoRequest{Email: email, Name: "Ada", Company: "Acme", Network: network, Created: now, TOSAccept: now}
}

func token() [32]byte {
	var h [32]byte
	rand.Read(h[:])
	return access.HashToken(string(h[:]))
}

func demoPerNetwork(t *testing.T, s state.Store) {
	for i := range 3 {
		if err := s.RecordDemoRequest(token(), demoRequest("a"+string(rune('0'+i))+"@example.org", "198.51.100.1"), 3); err != nil {
			t.Fatal(err)
		}
	}
	last := token()
	if err := s.RecordDemoRequest(last, demoRequest("x@example.org", "198.51.100.1"), 3); !errors.Is(err, access.ErrTooManyToday) {
		t.Errorf("fourth request of the network: %v, want ErrTooManyToday", err)
	}
	if _, _, _, err := s.RedeemDemoToken(last, time.Now(), time.Hour); !errors.Is(err, access.ErrTokenUnusable) {
		t.Errorf("the refused request was stored: %v", err)
	}
	if err := s.RecordDemoRequest(token(), demoRequest("x@example.org", "198.51.100.2"), 3); err != nil {
		t.Errorf("another network: %v", err)
	}
}

func concurrentClicks(t *testing.T, s state.Store) {
	tok := token()
	if err := s.RecordDemoRequest(tok, demoRequest("click@example.org", "198.51.100.9"), 5); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var texts []string
	var wg sync.WaitGroup
	for range Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text, _, req, err := s.RedeemDemoToken(tok, time.Now(), time.Hour)
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				texts = append(texts, text)
				return
			}
			if errors.Is(err, access.ErrTokenUsed) && req.Email != "click@example.org" {
				t.Errorf("ErrTokenUsed names %q", req.Email)
			}
			if !errors.Is(err, access.ErrTokenUsed) {
				t.Errorf("a click: %v, want ErrTokenUsed", err)
			}
		}()
	}
	wg.Wait()
	if len(texts) != 1 {
		t.Fatalf("%d keys minted by %d concurrent clicks, want 1", len(texts), Workers)
	}
	k, err := s.Lookup([]byte(texts[0]))
	if err != nil || k.Plan != access.PlanDemo || k.State != access.StateActive || k.Email != "click@example.org" {
		t.Errorf("the minted key: %+v, %v", k, err)
	}
}

func oneKeyPerEmail(t *testing.T, s state.Store) {
	a, b := token(), token()
	if err := s.RecordDemoRequest(a, demoRequest("once@example.org", "198.51.100.3"), 5); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordDemoRequest(b, demoRequest("once@example.org", "198.51.100.3"), 5); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := s.RedeemDemoToken(a, time.Now(), time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := s.RedeemDemoToken(b, time.Now(), time.Hour); !errors.Is(err, access.ErrKeyIssued) {
		t.Errorf("a second link of the address: %v, want ErrKeyIssued", err)
	}
	if err := s.RecordDemoRequest(token(), demoRequest("ONCE@example.org", "198.51.100.4"), 5); !errors.Is(err, access.ErrKeyIssued) {
		t.Errorf("a new request of the address: %v, want ErrKeyIssued", err)
	}
}

func expiredTokens(t *testing.T, s state.Store) {
	old := token()
	r := demoRequest("late@example.org", "198.51.100.5")
	r.Created = r.Created.Add(-2 * time.Hour)
	if err := s.RecordDemoRequest(old, r, 5); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := s.RedeemDemoToken(old, time.Now(), time.Hour); !errors.Is(err, access.ErrTokenUnusable) {
		t.Errorf("an expired link: %v, want ErrTokenUnusable", err)
	}
	if _, _, _, err := s.RedeemDemoToken(token(), time.Now(), time.Hour); !errors.Is(err, access.ErrTokenUnusable) {
		t.Errorf("an unknown link: %v, want ErrTokenUnusable", err)
	}
	// A withdrawn request's link does not work, and its network's count
	// is given back: two of two again.
	w1, w2 := token(), token()
	for _, tok := range [][32]byte{w1, w2} {
		if err := s.RecordDemoRequest(tok, demoRequest("w@example.org", "198.51.100.6"), 2); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.WithdrawDemoRequest(w1); err != nil {
		t.Fatal(err)
	}
	if err := s.WithdrawDemoRequest(token()); err != nil {
		t.Errorf("withdrawing an unknown request: %v", err)
	}
	if _, _, _, err := s.RedeemDemoToken(w1, time.Now(), time.Hour); !errors.Is(err, access.ErrTokenUnusable) {
		t.Errorf("a withdrawn link: %v, want ErrTokenUnusable", err)
	}
	if err := s.RecordDemoRequest(token(), demoRequest("w2@example.org", "198.51.100.6"), 2); err != nil {
		t.Errorf("after a withdrawal the network has room again: %v", err)
	}
}

// peekTokens: looking at a link (what a mail scanner's GET does) answers
// as its redemption would and uses nothing up, however often it is done.
func peekTokens(t *testing.T, s state.Store) {
	tok, other := token(), token()
	for _, k := range [][32]byte{tok, other} {
		if err := s.RecordDemoRequest(k, demoRequest("peek@example.org", "198.51.100.7"), 5); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		if req, err := s.PeekDemoToken(tok, time.Now(), time.Hour); err != nil || req.Email != "peek@example.org" {
			t.Fatalf("peek %d of a pending link: %+v, %v", i, req, err)
		}
	}
	if _, err := s.PeekDemoToken(tok, time.Now().Add(2*time.Hour), time.Hour); !errors.Is(err, access.ErrTokenUnusable) {
		t.Errorf("peek of an expired link: %v, want ErrTokenUnusable", err)
	}
	if _, err := s.PeekDemoToken(token(), time.Now(), time.Hour); !errors.Is(err, access.ErrTokenUnusable) {
		t.Errorf("peek of an unknown link: %v, want ErrTokenUnusable", err)
	}
	if _, _, _, err := s.RedeemDemoToken(tok, time.Now(), time.Hour); err != nil {
		t.Fatalf("redeeming a peeked link: %v", err)
	}
	if req, err := s.PeekDemoToken(tok, time.Now(), time.Hour); !errors.Is(err, access.ErrTokenUsed) || req.Email != "peek@example.org" {
		t.Errorf("peek of a used link: %+v, %v, want ErrTokenUsed with the request", req, err)
	}
	if _, err := s.PeekDemoToken(other, time.Now(), time.Hour); !errors.Is(err, access.ErrKeyIssued) {
		t.Errorf("peek of the address's other link: %v, want ErrKeyIssued", err)
	}
}

func payer() (eip3009.Address, [32]byte) {
	var a eip3009.Address
	var n [32]byte
	rand.Read(a[:])
	rand.Read(n[:])
	return a, n
}

func nonceOnce(t *testing.T, s state.Store) {
	from, nonce := payer()
	valid := uint64(time.Now().Add(time.Minute).Unix())
	fresh := successes(t, func() (bool, error) { return s.Claim(from, nonce, valid) })
	if fresh != 1 {
		t.Errorf("%d of %d concurrent claims of one authorization accepted, want 1", fresh, Workers)
	}
	other, _ := payer()
	if ok, err := s.Claim(other, nonce, valid); !ok || err != nil {
		t.Errorf("the same nonce of another payer: %v, %v", ok, err)
	}
	// An authorization already expired is still claimed once.
	past := uint64(time.Now().Add(-time.Minute).Unix())
	a, n := payer()
	first, _ := s.Claim(a, n, past)
	second, _ := s.Claim(a, n, past)
	if !first || second {
		t.Errorf("expired authorization claimed %v then %v, want true then false", first, second)
	}
}

func receipts(t *testing.T, s state.Store) {
	from, nonce := payer()
	if ok, err := s.Settled(from, nonce); ok || err != nil {
		t.Errorf("Settled before: %v, %v", ok, err)
	}
	r := x402.Receipt{Transaction: "local:0x01", Network: "eip155:84532", SettledAt: time.Now().UTC().Truncate(time.Second)}
	if ok, err := s.AddReceipt(from, nonce, r); !ok || err != nil {
		t.Fatalf("AddReceipt: %v, %v", ok, err)
	}
	r2 := r
	r2.Transaction = "local:0x02"
	if ok, err := s.AddReceipt(from, nonce, r2); ok || err != nil {
		t.Errorf("a second receipt of one authorization: %v, %v", ok, err)
	}
	if ok, err := s.Settled(from, nonce); !ok || err != nil {
		t.Errorf("Settled after: %v, %v", ok, err)
	}
	rs, err := s.Receipts()
	if err != nil || len(rs) != 1 || rs[0].Transaction != "local:0x01" {
		t.Errorf("Receipts: %+v, %v", rs, err)
	}
}

func paymentRecords(t *testing.T, s state.Store) {
	at := time.Now().UTC().Truncate(time.Second)
	a := x402.PaymentRecord{Reference: "pay_0000000000000001", Payer: "0xaa", Nonce: "0x01", Amount: "1000", At: at, Error: "timeout"}
	b := x402.PaymentRecord{Reference: "pay_0000000000000002", Payer: "0xbb", Nonce: "0x02", Amount: "1000", At: at.Add(time.Second), Error: "reset"}
	for _, r := range []x402.PaymentRecord{a, b, {Reference: a.Reference, Error: "again"}} {
		if err := s.RecordUnknown(r); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := s.Record(a.Reference); err != nil || got.Error != "timeout" || got.State != x402.StateUnknown {
		t.Errorf("Record: %+v, %v (the first record is kept)", got, err)
	}
	if _, err := s.Record("pay_ffffffffffffffff"); !errors.Is(err, x402.ErrNoRecord) {
		t.Errorf("Record of an unknown reference: %v", err)
	}
	if _, err := s.Resolve(a.Reference, x402.StateSettled, "0xfeed", "operator"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve(a.Reference, x402.StateUnsettled, "", "operator"); !errors.Is(err, x402.ErrResolved) {
		t.Errorf("resolving twice: %v, want ErrResolved", err)
	}
	if _, err := s.Resolve(b.Reference, "maybe", "", "operator"); err == nil {
		t.Error("resolved to an unknown state")
	}
	open, err := s.Records(false)
	if err != nil || len(open) != 1 || open[0].Reference != b.Reference {
		t.Errorf("Records(false): %+v, %v", open, err)
	}
	all, err := s.Records(true)
	if err != nil || len(all) != 2 || all[0].Reference != a.Reference || all[0].State != x402.StateSettled || all[0].Transaction != "0xfeed" {
		t.Errorf("Records(true): %+v, %v", all, err)
	}
}
