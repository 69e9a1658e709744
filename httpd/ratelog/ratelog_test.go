package ratelog

import (
	"bytes"
	"log"
	"strings"
	"testing"
	"time"
)

func TestOncePerCauseAndInterval(t *testing.T) {
	var out bytes.Buffer
	l := New(log.New(&out, "", 0), time.Minute)
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return now }
	if !l.Printf("metering", "flush failed: %v", "disk full") {
		t.Fatal("first line of a cause must be written")
	}
	for range 3 {
		if l.Printf("metering", "flush failed: %v", "disk full") {
			t.Fatal("a repeat within the interval must be suppressed")
		}
	}
	if !l.Printf("mail", "send failed") {
		t.Fatal("another cause has its own interval")
	}
	now = now.Add(time.Minute)
	if !l.Printf("metering", "flush failed: %v", "disk full") {
		t.Fatal("a line after the interval must be written")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		"metering: flush failed: disk full",
		"mail: send failed",
		"metering: flush failed: disk full (3 more like this suppressed)",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), strings.Join(want, "\n"))
	}
}
