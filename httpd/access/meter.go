package access

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/vspec/catalogue/httpd/ratelog"
	"github.com/vspec/catalogue/httpd/tick"
)

// Window is a fixed calendar window of a limit, in UTC.
type Window uint8

// Windows.
const (
	Minute Window = iota
	Day
	Month
	numWindows
)

// NumWindows is the number of windows of a key: minute, day, month.
const NumWindows = numWindows

var windowNames = [numWindows]string{"minute", "day", "month"}

// String returns the window's name.
func (w Window) String() string { return windowNames[w] }

// index returns the number of the window that contains t: minutes, days or
// months since 1970.
func (w Window) index(t time.Time) uint32 {
	switch w {
	case Minute:
		return uint32(t.Unix() / 60)
	case Day:
		return uint32(t.Unix() / 86400)
	}
	y, m, _ := t.UTC().Date() // one calendar computation, not two (Year, Month)
	return uint32((y-1970)*12 + int(m) - 1)
}

// End returns when the window containing t ends.
func (w Window) End(t time.Time) time.Time {
	switch w {
	case Minute:
		return time.Unix((t.Unix()/60+1)*60, 0).UTC()
	case Day:
		return time.Unix((t.Unix()/86400+1)*86400, 0).UTC()
	}
	return ResetsAt(t)
}

// Seconds is the nominal length of the window, for RateLimit-Policy.
func (w Window) Seconds() int {
	switch w {
	case Minute:
		return 60
	case Day:
		return 86400
	}
	return 2592000
}

// Limits are the calls a plan allows per window.
type Limits [numWindows]int64

// DefaultLimits returns the default limits of a plan.
func DefaultLimits(p Plan) Limits {
	switch p {
	case PlanDemo:
		return Limits{10, 2000, 20000}
	case PlanApify:
		return Limits{120, 10000, 100000}
	case PlanFree:
		return Limits{20, 200, 1000}
	}
	return Limits{}
}

// counter is one window's count: the window number in the high 32 bits and
// the count in the low 32, updated with compare-and-swap so that concurrent
// requests never lose an increment and never pass a limit together.
type counter struct{ v atomic.Uint64 }

func (c *counter) load(win uint32) uint32 {
	v := c.v.Load()
	if uint32(v>>32) != win {
		return 0
	}
	return uint32(v)
}

// reserve adds one in window win unless that would exceed limit, and
// returns the count with it.
func (c *counter) reserve(win uint32, limit int64) (int64, bool) {
	for {
		old := c.v.Load()
		n := uint64(0)
		if uint32(old>>32) == win {
			n = old & 0xffffffff
		}
		if int64(n)+1 > limit {
			return 0, false
		}
		if c.v.CompareAndSwap(old, uint64(win)<<32|(n+1)) {
			return int64(n + 1), true
		}
	}
}

// release takes back one reserved in window win (nothing when the window
// has rolled over since).
func (c *counter) release(win uint32) {
	for {
		old := c.v.Load()
		if uint32(old>>32) != win || old&0xffffffff == 0 {
			return
		}
		if c.v.CompareAndSwap(old, old-1) {
			return
		}
	}
}

// Usage counts a key's calls per window.
type Usage struct {
	windows [numWindows]counter
	dirty   atomic.Bool // changed since the last flush
}

// Used returns the calls counted in the window of w that contains now.
func (u *Usage) Used(w Window, now time.Time) int64 {
	return int64(u.windows[w].load(w.index(now)))
}

// Ticket is a reservation made by Reserve, to be confirmed (the response
// was served) or released (it was not).
type Ticket struct {
	// Used holds the count of each window with this call.
	Used [numWindows]int64

	u    *Usage // the embedded store's counters
	key  *Key   // and a shared store's key and release
	rel  releaser
	wins [numWindows]uint32
}

// Windows returns the numbers of the windows the call was counted in.
func (t *Ticket) Windows() [numWindows]uint32 { return t.wins }

// Index returns the number of the window of w that contains t: minutes,
// days or calendar months (UTC) since 1970.
func (w Window) Index(t time.Time) uint32 { return w.index(t) }

// Remaining returns what is left in window w after the reservation.
func (t *Ticket) Remaining(w Window, limits *Limits) int64 {
	return max(0, limits[w]-t.Used[w])
}

// Reserve counts one call at now against limits. When a limit would be
// exceeded it counts nothing and returns the window that is full. A
// reservation is taken before the request is served, so N concurrent
// requests with room for N-1 let exactly N-1 through.
func (u *Usage) Reserve(now time.Time, limits *Limits) (t Ticket, full Window, ok bool) {
	t.u = u
	for w := Window(0); w < numWindows; w++ {
		t.wins[w] = w.index(now)
		n, ok := u.windows[w].reserve(t.wins[w], limits[w])
		if !ok {
			for x := Window(0); x < w; x++ {
				u.windows[x].release(t.wins[x])
			}
			return Ticket{}, w, false
		}
		t.Used[w] = n
	}
	u.dirty.Store(true)
	return t, 0, true
}

// Release takes the reservation back: the request was not served (an
// error), so it does not count.
func (t Ticket) Release() {
	if t.rel != nil {
		t.rel.release(t)
		return
	}
	if t.u == nil {
		return
	}
	for w := Window(0); w < numWindows; w++ {
		t.u.windows[w].release(t.wins[w])
	}
}

// Remaining returns what is left in window w after the reservation, and
// when w resets.
func (u *Usage) Remaining(w Window, now time.Time, limits *Limits) (int64, time.Time) {
	return max(0, limits[w]-u.Used(w, now)), w.End(now)
}

// Metering.

var bucketUsage = []byte("usage")

// ErrMeteringDown is returned while usage cannot be persisted: requests are
// then refused rather than served uncounted.
var ErrMeteringDown = errors.New("usage metering is unavailable")

// Meter persists every key's counters in batches and knows whether metering
// can be trusted.
type Meter struct {
	store    *Store
	interval time.Duration
	maxLag   time.Duration

	mu        sync.Mutex
	lastOK    atomic.Int64 // Unix nanoseconds of the last successful flush
	lastError atomic.Pointer[string]
	stop      chan struct{}
	done      chan struct{}
	failFlush func() error // test hook: a broken store
	log       *ratelog.Logger
}

// StartMeter loads the persisted counters into the keys and flushes them
// every interval (default 1 s). Metering is reported down when no flush has
// succeeded for maxLag (default 5 s).
func (s *Store) StartMeter(interval, maxLag time.Duration) (*Meter, error) {
	if interval <= 0 {
		interval = time.Second
	}
	if maxLag <= 0 {
		maxLag = 5 * time.Second
	}
	m := &Meter{store: s, interval: interval, maxLag: maxLag, stop: make(chan struct{}), done: make(chan struct{}), log: ratelog.Default}
	if err := m.load(); err != nil {
		return nil, err
	}
	m.lastOK.Store(time.Now().UnixNano())
	go m.loop()
	return m, nil
}

func (m *Meter) load() error {
	idx := *m.store.index.Load()
	return m.store.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketUsage)
		if err != nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error {
			var h Hash
			copy(h[:], k)
			key, ok := idx[h]
			if !ok || len(v) != 8*int(numWindows) {
				return nil
			}
			for w := Window(0); w < numWindows; w++ {
				key.usage.windows[w].v.Store(binary.LittleEndian.Uint64(v[8*w:]))
			}
			return nil
		})
	})
}

func (m *Meter) loop() {
	defer close(m.done)
	tick.Every(m.interval, m.stop, func() { m.Flush() })
	m.Flush()
}

// Flush writes every changed counter in one transaction.
func (m *Meter) Flush() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var err error
	if m.failFlush != nil {
		err = m.failFlush()
	}
	if err == nil {
		idx := *m.store.index.Load()
		var changed []*Key
		for _, k := range idx {
			if k.usage.dirty.Swap(false) {
				changed = append(changed, k)
			}
		}
		if len(changed) > 0 {
			err = m.store.db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(bucketUsage)
				var v [8 * numWindows]byte
				for _, k := range changed {
					for w := Window(0); w < numWindows; w++ {
						binary.LittleEndian.PutUint64(v[8*w:], k.usage.windows[w].v.Load())
					}
					if err := b.Put(k.Hash[:], v[:]); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				for _, k := range changed {
					k.usage.dirty.Store(true)
				}
			}
		}
	}
	if err != nil {
		msg := err.Error()
		m.lastError.Store(&msg)
		m.log.Printf("metering", "cannot persist usage counters to %s: %v (keyed requests are refused with 503 once no flush has succeeded for %s)", m.store.db.Path(), err, m.maxLag)
		return fmt.Errorf("cannot persist usage: %w", err)
	}
	m.lastOK.Store(time.Now().UnixNano())
	return nil
}

// Healthy reports whether metering can be trusted now: a flush succeeded
// within maxLag.
func (m *Meter) Healthy(now time.Time) bool {
	return now.UnixNano()-m.lastOK.Load() <= int64(m.maxLag)
}

// LastError returns the error of the last failed flush, or "".
func (m *Meter) LastError() string {
	if p := m.lastError.Load(); p != nil {
		return *p
	}
	return ""
}

// SetLog sends the meter's log lines to l (default ratelog.Default).
func (m *Meter) SetLog(l *ratelog.Logger) { m.log = l }

// Close flushes one last time and stops the loop.
func (m *Meter) Close() {
	close(m.stop)
	<-m.done
}

// BreakForTest makes every flush fail with err (nil repairs it).
func (m *Meter) BreakForTest(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err == nil {
		m.failFlush = nil
		return
	}
	m.failFlush = func() error { return err }
}
