// Package progress draws a one-line progress bar for long operator
// commands (generating, writing and exporting snapshots) when, and only
// when, the output is a terminal; elsewhere it stays silent so logs and
// pipes get no control characters.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// Bar is a progress bar on a terminal. The zero Bar and a Bar on a
// non-terminal do nothing.
type Bar struct {
	w     io.Writer
	label string
	last  time.Time
	shown bool
}

// New returns a bar writing to w when w is a terminal.
func New(w io.Writer, label string) *Bar {
	if f, ok := w.(*os.File); !ok || !IsTerminal(f) {
		return &Bar{}
	}
	return &Bar{w: w, label: label}
}

// IsTerminal reports whether f is a terminal: not merely a character
// device, which /dev/null also is.
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// Phase shows, on a terminal, that a phase without a measure of its
// progress is running: its label and the time it has taken so far,
// redrawn ten times a second until the returned stop is called. Elsewhere
// it draws nothing.
func Phase(w io.Writer, label string) (stop func()) {
	if f, ok := w.(*os.File); !ok || !IsTerminal(f) {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			fmt.Fprintf(w, "\r%s… %.1fs", label, time.Since(start).Seconds())
			select {
			case <-done:
				fmt.Fprintf(w, "\r%s… %.1fs\n", label, time.Since(start).Seconds())
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// Update redraws the bar at done of total, at most ten times a second.
func (b *Bar) Update(done, total int) {
	if b == nil || b.w == nil || total <= 0 {
		return
	}
	if now := time.Now(); done < total && now.Sub(b.last) < 100*time.Millisecond {
		return
	} else {
		b.last = now
	}
	const width = 30
	filled := width * done / total
	fmt.Fprintf(b.w, "\r%s [%s%s] %3d%% %d/%d", b.label, strings.Repeat("=", filled), strings.Repeat(" ", width-filled), 100*done/total, done, total)
	b.shown = true
}

// Done ends the bar's line.
func (b *Bar) Done() {
	if b != nil && b.shown {
		fmt.Fprintln(b.w)
		b.shown = false
	}
}
