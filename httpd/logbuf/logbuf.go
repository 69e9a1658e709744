// Package logbuf batches the access log on its way to the process's log
// file: one write per batch instead of one per request, which on a busy
// server costs more than the request itself (issue 20).
//
// A Writer takes two kinds of lines. Deferred lines (AppendLine, the access
// log) are kept in memory and written together when a batch is full or a
// flush interval has passed. Every other line (Write, the process's own
// log through slog) is written at once, after the deferred lines before
// it, so lines keep their order and nothing but the access log waits. On a
// crash, the access lines of the last interval may be lost; Close writes
// them on a clean stop.
//
// It imports only the standard library and httpd/tick.
package logbuf

import (
	"io"
	"sync"
	"time"

	"github.com/vspec/catalogue/httpd/tick"
)

// Defaults of New.
const (
	DefaultInterval = 100 * time.Millisecond
	DefaultBatch    = 64 << 10
)

// Writer batches deferred lines in front of out. Its methods are safe for
// concurrent use.
type Writer struct {
	out      io.Writer
	batch    int
	interval time.Duration

	mu  sync.Mutex // guards buf
	buf []byte     // deferred lines not yet written

	wmu   sync.Mutex // orders the writes to out; guards spare
	spare []byte     // the buffer written last, reused as the next buf

	stop chan struct{}
	done chan struct{}
}

// New returns a Writer in front of out that writes deferred lines when
// batch bytes are pending or interval has passed (defaults for zero
// values). Close stops its flushing goroutine.
func New(out io.Writer, interval time.Duration, batch int) *Writer {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if batch <= 0 {
		batch = DefaultBatch
	}
	w := &Writer{out: out, batch: batch, interval: interval, buf: make([]byte, 0, batch+1024), spare: make([]byte, 0, batch+1024),
		stop: make(chan struct{}), done: make(chan struct{})}
	go w.loop()
	return w
}

func (w *Writer) loop() {
	defer close(w.done)
	tick.Every(w.interval, w.stop, func() {
		w.mu.Lock()
		pending := len(w.buf) > 0
		w.mu.Unlock()
		if pending {
			w.flush(nil)
		}
	})
}

// AppendLine defers the whole line (ending in a newline) render appends to
// its argument: rendered in place, at the end of the batch, with no copy,
// and written with its batch. render runs under the batch's lock, so it
// must be short (an access line takes about 0.1 µs), must not keep its
// argument and must not call the Writer. The write error of a batch is not
// reported; a log line is not worth failing a request for.
func (w *Writer) AppendLine(render func(dst []byte) []byte) {
	full := w.appendLine(render)
	if full {
		w.flush(nil)
	}
}

// appendLine appends render's line to the batch and reports whether the
// batch is full.
func (w *Writer) appendLine(render func(dst []byte) []byte) bool {
	w.mu.Lock()
	defer w.mu.Unlock() // a panicking render must not leave every later line waiting
	w.buf = render(w.buf)
	return len(w.buf) >= w.batch
}

// Write writes p now, after the deferred lines before it: the io.Writer
// of the process's own log.
func (w *Writer) Write(p []byte) (int, error) {
	if err := w.flush(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes the deferred lines now.
func (w *Writer) Flush() error { return w.flush(nil) }

// Close stops the flushing goroutine and writes the deferred lines. Lines
// deferred after Close are written by the next Write or Flush only.
func (w *Writer) Close() error {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
	return w.flush(nil)
}

// flush writes the deferred lines, then extra, in one write.
func (w *Writer) flush(extra []byte) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	w.mu.Lock()
	pending := w.buf
	w.buf = w.spare[:0]
	w.mu.Unlock()
	out := extra
	if len(pending) > 0 {
		pending = append(pending, extra...)
		out = pending
	}
	var err error
	if len(out) > 0 {
		_, err = w.out.Write(out)
	}
	if cap(pending) > 4*(w.batch+1024) { // a rare huge batch is not kept
		pending = make([]byte, 0, w.batch+1024)
	}
	w.spare = pending[:0]
	return err
}
