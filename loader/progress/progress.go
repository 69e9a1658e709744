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

// IsTerminal reports whether f is a character device (a terminal).
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
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
