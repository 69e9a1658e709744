package tick

import (
	"testing"
	"time"
)

// TestEvery: f runs on each tick, and Every returns once stop is closed.
func TestEvery(t *testing.T) {
	stop, done := make(chan struct{}), make(chan struct{})
	calls := make(chan struct{}, 100)
	go func() {
		defer close(done)
		Every(time.Millisecond, stop, func() { calls <- struct{}{} })
	}()
	for range 3 {
		select {
		case <-calls:
		case <-time.After(10 * time.Second):
			t.Fatal("f was not called")
		}
	}
	close(stop)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Every did not return after stop")
	}
}

// TestWhile: While returns once f returns false, without stop.
func TestWhile(t *testing.T) {
	n := 0
	While(time.Millisecond, make(chan struct{}), func() bool { n++; return n < 3 })
	if n != 3 {
		t.Errorf("f called %d times, want 3", n)
	}
}
