package logbuf

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// sink records each write to out separately.
type sink struct {
	mu     sync.Mutex
	writes []string
}

func (s *sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, string(p))
	return len(p), nil
}

func (s *sink) all() (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.writes, ""), len(s.writes)
}

// line renders b: a deferred line as AppendLine takes it.
func line(b []byte) func([]byte) []byte {
	return func(dst []byte) []byte { return append(dst, b...) }
}

// TestOrderAndBatching: deferred lines wait for a batch; a process line is
// written at once, after the deferred lines before it, in one write.
func TestOrderAndBatching(t *testing.T) {
	var s sink
	w := New(&s, time.Hour, 1<<20)
	defer w.Close()
	w.AppendLine(line([]byte("a1\n")))
	w.AppendLine(line([]byte("a2\n")))
	if got, _ := s.all(); got != "" {
		t.Fatalf("deferred lines written before their batch: %q", got)
	}
	fmt.Fprintf(w, "started\n")
	if got, n := s.all(); got != "a1\na2\nstarted\n" || n != 1 {
		t.Fatalf("%d writes %q, want one with the deferred lines first", n, got)
	}
	w.AppendLine(line([]byte("a3\n")))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, n := s.all(); got != "a1\na2\nstarted\na3\n" || n != 2 {
		t.Fatalf("after Flush: %d writes %q", n, got)
	}
	fmt.Fprintf(w, "alone\n")
	if got, n := s.all(); !strings.HasSuffix(got, "a3\nalone\n") || n != 3 {
		t.Fatalf("a process line with nothing pending: %d writes %q", n, got)
	}
}

// TestFullBatch: a batch is written as soon as it holds batch bytes.
func TestFullBatch(t *testing.T) {
	var s sink
	w := New(&s, time.Hour, 10)
	defer w.Close()
	w.AppendLine(line([]byte("12345\n")))
	if _, n := s.all(); n != 0 {
		t.Fatal("written before the batch was full")
	}
	w.AppendLine(line([]byte("67890\n")))
	if got, n := s.all(); got != "12345\n67890\n" || n != 1 {
		t.Fatalf("full batch: %d writes %q", n, got)
	}
}

// TestInterval: deferred lines are written by the flushing goroutine
// without any other call.
func TestInterval(t *testing.T) {
	var s sink
	w := New(&s, time.Millisecond, 1<<20)
	defer w.Close()
	w.AppendLine(line([]byte("tick\n")))
	for i := 0; i < 10000; i++ {
		if got, _ := s.all(); got == "tick\n" {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the deferred line was never written")
}

// TestCloseFlushes: Close writes what is pending, and lines from many
// goroutines all arrive whole.
func TestCloseFlushes(t *testing.T) {
	var s sink
	w := New(&s, time.Hour, 256)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				w.AppendLine(line(fmt.Appendf(nil, "g%d-%d\n", g, i)))
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := s.all()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 8*500 {
		t.Fatalf("%d lines, want %d", len(lines), 8*500)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l] = true
	}
	if len(seen) != 8*500 || !bytes.HasPrefix([]byte(lines[0]), []byte("g")) {
		t.Fatalf("%d distinct lines", len(seen))
	}
}
