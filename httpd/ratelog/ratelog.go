// Package ratelog logs refusals whose cause is on the server's side (the
// metering store, the payments store, mail, the facilitator, descriptor
// exhaustion) once per cause and interval, so that a failure seen by every
// request is reported with its cause without flooding the log.
//
// It imports only the standard library.
package ratelog

import (
	"log"
	"sync"
	"time"
)

// Logger writes at most one line per cause per Interval; the next line of
// a cause says how many were suppressed since the last one. The zero value
// is not usable: call New.
type Logger struct {
	out      *log.Logger
	interval time.Duration
	now      func() time.Time

	mu     sync.Mutex
	causes map[string]*causeState
}

type causeState struct {
	last       time.Time
	suppressed int
}

// New returns a Logger writing to out (log.Default() when nil) at most once
// per interval per cause.
func New(out *log.Logger, interval time.Duration) *Logger {
	if out == nil {
		out = log.Default()
	}
	return &Logger{out: out, interval: interval, now: time.Now, causes: map[string]*causeState{}}
}

// Default logs to the standard logger at most once a minute per cause.
var Default = New(nil, time.Minute)

// Printf logs the formatted line under cause unless a line of that cause
// was written less than the interval ago, in which case it is counted. It
// reports whether the line was written.
func (l *Logger) Printf(cause, format string, args ...any) bool {
	now := l.now()
	l.mu.Lock()
	st := l.causes[cause]
	if st == nil {
		if len(l.causes) >= maxCauses { // causes are few and fixed; bound the map anyway
			clear(l.causes)
		}
		st = &causeState{}
		l.causes[cause] = st
	}
	if !st.last.IsZero() && now.Sub(st.last) < l.interval {
		st.suppressed++
		l.mu.Unlock()
		return false
	}
	suppressed := st.suppressed
	st.last, st.suppressed = now, 0
	l.mu.Unlock()
	if suppressed > 0 {
		format += " (%d more like this suppressed)"
		args = append(args, suppressed)
	}
	l.out.Printf(cause+": "+format, args...)
	return true
}

const maxCauses = 1024
