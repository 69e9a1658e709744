package access

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

// openStore opens the store in dir, failing the test when it cannot.
func openStore(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestKeysPersist(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	text, k, err := s.Create(PlanApify, StateActive, " Ops@Example.org ", "pilot")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^vsc_apify_[0-9a-f]{48}$`).MatchString(text) {
		t.Errorf("key %q", text)
	}
	if k.Email != "ops@example.org" {
		t.Errorf("email %q not normalised", k.Email)
	}
	demo, _, _ := s.Create(PlanDemo, StatePending, "", "")
	if !regexp.MustCompile(`^vsc_demo_[0-9a-f]{48}$`).MatchString(demo) {
		t.Errorf("demo key %q: want a fixed prefix, _demo_, 48 hex", demo)
	}
	if got, err := s.Lookup([]byte(text)); err != nil || got.Plan != PlanApify || got.State != StateActive {
		t.Fatalf("Lookup: %v %v", got, err)
	}
	if _, err := s.Lookup([]byte(text + "x")); !errors.Is(err, ErrNotFound) {
		t.Error("a wrong key was found")
	}
	got, _ := s.Lookup([]byte(text))
	lim := DefaultLimits(PlanApify)
	got.Usage().Reserve(time.Now(), &lim)
	if _, err := s.SetState(k.Hash.String()[:10], StateRevoked); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Lookup([]byte(text)); got.State != StateRevoked || got.Usage().Used(Month, time.Now()) != 1 {
		t.Errorf("after revoke: state %v, used %d (the counter must carry over)", got.State, got.Usage().Used(Month, time.Now()))
	}
	// A second process cannot open the store while it is open.
	if _, err := Open(dir); !errors.Is(err, ErrLocked) {
		t.Errorf("second open: %v", err)
	}
	s.Close()
	// Everything survives a restart, and the key text was never stored.
	s2 := openStore(t, dir)
	defer s2.Close()
	if got, err := s2.Lookup([]byte(text)); err != nil || got.State != StateRevoked || got.Note != "pilot" {
		t.Errorf("after reopen: %+v %v", got, err)
	}
	if l, _ := s2.List(); len(l) != 2 {
		t.Errorf("%d keys after reopen", len(l))
	}
	if _, err := s2.Find("abc"); err == nil || !strings.Contains(err.Error(), "8 hex digits") {
		t.Errorf("short reference: %v", err)
	}
	if _, err := s2.Find("ffffffffffff"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown reference: %v", err)
	}
}

func TestWindows(t *testing.T) {
	var u Usage
	lim := Limits{1000, 1000, 1000}
	jan := time.Date(2026, 1, 31, 23, 59, 0, 0, time.UTC)
	u.Reserve(jan, &lim)
	u.Reserve(jan, &lim)
	if u.Used(Month, jan) != 2 || u.Used(Day, jan) != 2 || u.Used(Minute, jan) != 2 {
		t.Errorf("used %d/%d/%d", u.Used(Minute, jan), u.Used(Day, jan), u.Used(Month, jan))
	}
	feb := jan.Add(2 * time.Minute)
	if u.Used(Month, feb) != 0 || u.Used(Day, feb) != 0 || u.Used(Minute, feb) != 0 {
		t.Error("January's calls counted in February")
	}
	u.Reserve(feb, &lim)
	if u.Used(Month, feb) != 1 {
		t.Errorf("February used %d", u.Used(Month, feb))
	}
	if got := ResetsAt(jan); !got.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("ResetsAt %v", got)
	}
	if got := ResetsAt(time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)); got.Year() != 2027 || got.Month() != 1 {
		t.Errorf("ResetsAt in December %v", got)
	}
	if e := Minute.End(jan.Add(30 * time.Second)); !e.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("minute end %v", e)
	}
	if e := Day.End(jan); !e.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("day end %v", e)
	}
}

// TestWithdrawDemoRequest: a withdrawn request's link no longer works and
// the network's count of that day goes back down, durably.
func TestWithdrawDemoRequest(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	now := time.Date(2030, 3, 4, 10, 0, 0, 0, time.UTC)
	rec := func(tok string) error {
		return s.RecordDemoRequest(HashToken(tok), DemoRequest{Email: tok + "@example.org", Network: "192.0.2.1", Created: now}, 2)
	}
	for _, tok := range []string{"a", "b"} {
		if err := rec(tok); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec("c"); err != ErrTooManyToday {
		t.Fatalf("third request of the day: %v, want ErrTooManyToday", err)
	}
	if err := s.WithdrawDemoRequest(HashToken("b")); err != nil {
		t.Fatal(err)
	}
	if err := s.WithdrawDemoRequest(HashToken("never recorded")); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := s.RedeemDemoToken(HashToken("b"), now, time.Hour); err != ErrTokenUnusable {
		t.Fatalf("redeeming a withdrawn request: %v, want ErrTokenUnusable", err)
	}
	s.Close()
	s = openStore(t, dir) // the withdrawal is durable
	defer s.Close()
	if err := rec("c"); err != nil {
		t.Fatalf("after a withdrawal the network has one request left: %v", err)
	}
	if err := rec("d"); err != ErrTooManyToday {
		t.Fatalf("and only one: %v", err)
	}
}
