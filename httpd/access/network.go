package access

import (
	"hash/maphash"
	"sync"
	"time"
)

// NetworkLimiter limits calls per network (an IPv4 address or an IPv6 /64)
// per minute, for callers without a key: keyless paid calls (60 a minute
// by default) and the agent surface. Counts live in memory in sharded maps;
// a minute's counts are dropped when the next minute starts.
type NetworkLimiter struct {
	limit  int64
	seed   maphash.Seed
	shards [32]netShard
}

type netShard struct {
	mu     sync.Mutex
	minute int64
	counts map[string]int64
}

// NewNetworkLimiter allows perMinute calls per network per minute.
func NewNetworkLimiter(perMinute int64) *NetworkLimiter {
	l := &NetworkLimiter{limit: perMinute, seed: maphash.MakeSeed()}
	for i := range l.shards {
		l.shards[i].counts = map[string]int64{}
	}
	return l
}

// Allow counts one call of network at now; when the network has used its
// minute it counts nothing and returns false with the time until the
// minute ends.
func (l *NetworkLimiter) Allow(network string, now time.Time) (bool, time.Duration, error) {
	s := &l.shards[maphash.String(l.seed, network)%uint64(len(l.shards))]
	minute := now.Unix() / 60
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.minute != minute {
		s.minute = minute
		clear(s.counts)
	}
	if s.counts[network] >= l.limit {
		return false, Minute.End(now).Sub(now) + time.Second, nil
	}
	s.counts[network]++
	return true, 0, nil
}

// Limit returns the calls allowed per network per minute.
func (l *NetworkLimiter) Limit() int64 { return l.limit }
