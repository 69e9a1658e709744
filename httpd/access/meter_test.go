package access

import (
	"bytes"
	"errors"
	"log"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/ratelog"
)

// TestNoLostIncrements counts a million concurrent reservations.
func TestNoLostIncrements(t *testing.T) {
	var u Usage
	lim := Limits{1 << 31, 1 << 31, 1 << 31}
	now := time.Date(2026, 5, 5, 10, 30, 0, 0, time.UTC)
	const workers, each = 8, 125000
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, _, ok := u.Reserve(now, &lim); !ok {
					t.Error("refused below the limit")
					return
				}
			}
		}()
	}
	wg.Wait()
	for w := Minute; w <= Month; w++ {
		if got := u.Used(w, now); got != workers*each {
			t.Errorf("%s: %d counted, want %d", w, got, workers*each)
		}
	}
}

func TestReserveRelease(t *testing.T) {
	var u Usage
	lim := Limits{2, 5, 100}
	now := time.Date(2026, 5, 5, 10, 30, 0, 0, time.UTC)
	t1, _, ok1 := u.Reserve(now, &lim)
	_, _, ok2 := u.Reserve(now, &lim)
	_, full, ok3 := u.Reserve(now, &lim)
	if !ok1 || !ok2 || ok3 || full != Minute {
		t.Fatalf("reservations %v %v %v (full %s)", ok1, ok2, ok3, full)
	}
	if u.Used(Day, now) != 2 {
		t.Errorf("a refused reservation counted in the day window: %d", u.Used(Day, now))
	}
	t1.Release()
	if u.Used(Minute, now) != 1 || u.Used(Month, now) != 1 {
		t.Errorf("after release: %d / %d", u.Used(Minute, now), u.Used(Month, now))
	}
	// Each new minute has room again; the day window keeps counting (1 so
	// far) up to its limit of 5.
	for m := 1; m <= 2; m++ {
		for i := 0; i < 2; i++ {
			if _, _, ok := u.Reserve(now.Add(time.Duration(m)*time.Minute), &lim); !ok {
				t.Fatalf("refused in minute %d", m)
			}
		}
	}
	if u.Used(Day, now) != 5 {
		t.Fatalf("day count %d, want 5", u.Used(Day, now))
	}
	if _, full, ok := u.Reserve(now.Add(3*time.Minute), &lim); ok || full != Day {
		t.Errorf("the day limit of 5 was not enforced: %v %s", ok, full)
	}
}

// TestCountsPersist checks that counters survive a restart, losing at most
// what was not yet flushed.
func TestCountsPersist(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	text, k, _ := s.Create(PlanFree, StateActive, "", "")
	m, err := s.StartMeter(10*time.Millisecond, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	lim := Limits{1000, 1000, 1000}
	now := time.Now()
	for i := 0; i < 17; i++ {
		k.Usage().Reserve(now, &lim)
	}
	time.Sleep(50 * time.Millisecond) // a flush or more
	m.Close()
	s.Close()
	s2 := openStore(t, dir)
	defer s2.Close()
	m2, err := s2.StartMeter(time.Second, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	k2, _ := s2.Lookup([]byte(text))
	if got := k2.Usage().Used(Month, now); got != 17 {
		t.Errorf("%d calls after a restart, want 17", got)
	}
}

func BenchmarkReserve(b *testing.B) {
	var u Usage
	lim := Limits{1 << 31, 1 << 31, 1 << 31}
	now := time.Now()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			u.Reserve(now, &lim)
		}
	})
}

func BenchmarkReserveRelease(b *testing.B) {
	var u Usage
	lim := Limits{1 << 31, 1 << 31, 1 << 31}
	now := time.Now()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		t, _, _ := u.Reserve(now, &lim)
		t.Release()
	}
}

func TestNetworkLimiter(t *testing.T) {
	l := NewNetworkLimiter(60)
	now := time.Date(2026, 5, 5, 10, 30, 5, 0, time.UTC)
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				if ok, _, _ := l.Allow("203.0.113.7", now); ok {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if allowed != 60 {
		t.Errorf("%d calls allowed, want 60", allowed)
	}
	if ok, wait, _ := l.Allow("203.0.113.7", now); ok || wait <= 0 || wait > 61*time.Second {
		t.Errorf("61st call: %v, retry after %v", ok, wait)
	}
	if ok, _, _ := l.Allow("203.0.113.8", now); !ok {
		t.Error("another network was refused")
	}
	if ok, _, _ := l.Allow("203.0.113.7", now.Add(time.Minute)); !ok {
		t.Error("the next minute was refused")
	}
}

// TestFlushFailureLogged: a failed flush is logged with its cause (once per
// minute), and LastError tells it.
func TestFlushFailureLogged(t *testing.T) {
	s := openStore(t, t.TempDir())
	defer s.Close()
	m, err := s.StartMeter(time.Hour, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var out bytes.Buffer
	m.SetLog(ratelog.New(log.New(&out, "", 0), time.Minute))
	m.BreakForTest(errors.New("no space left on device"))
	for range 3 {
		if m.Flush() == nil {
			t.Fatal("a broken flush reported success")
		}
	}
	if got := strings.Count(out.String(), "no space left on device"); got != 1 {
		t.Fatalf("%d log lines naming the cause, want 1 (rate-limited): %q", got, out.String())
	}
	if !strings.Contains(m.LastError(), "no space left on device") {
		t.Fatalf("LastError %q", m.LastError())
	}
}
