//go:build redis

package redisstore_test

import (
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/redisstore"
	"github.com/vspec/catalogue/httpd/redisstore/redistest"
	"github.com/vspec/catalogue/httpd/state/statetest"
)

// Concurrency is the number of requests in flight the Redis figures are
// taken at (issue 18: 32 per replica).
const Concurrency = 32

// BenchmarkRedisAdmit is what a keyed request costs on the Redis store:
// the key's lookup (client-side cache) and the metering script, from
// Concurrency goroutines sharing one client (auto-pipelined), with the
// production Redis configuration (appendfsync always). It reports the
// latency of one admission at p50 and p99.
//
// Sub-benchmarks: "always" is the production configuration with the data
// on this machine's disk; "everysec" syncs once a second (a crash of the
// machine may lose up to a second of counts: not the configuration the
// docs/fleet.md asks for, measured to show what the fsync costs); "always-tmpfs"
// puts the files on tmpfs, where fsync is free: the cost of Redis, the
// script and the round trip alone, as a disk with fast synchronous writes
// would give.
func BenchmarkRedisAdmit(b *testing.B) {
	b.Run("always", func(b *testing.B) { benchAdmit(b, redistest.Options{}) })
	b.Run("everysec", func(b *testing.B) {
		benchAdmit(b, redistest.Options{Config: strings.Replace(redistest.Config, "appendfsync always", "appendfsync everysec", 1)})
	})
	b.Run("always-tmpfs", func(b *testing.B) {
		dir, err := os.MkdirTemp("/dev/shm", "redisbench")
		if err != nil {
			b.Skip("no /dev/shm")
		}
		defer os.RemoveAll(dir)
		benchAdmit(b, redistest.Options{Dir: dir})
	})
}

func benchAdmit(b *testing.B, o redistest.Options) {
	srv := redistest.StartWith(b, o)
	s := redistest.Open(b, srv.URL(0), redisstore.Options{Timeout: 5 * time.Second})
	defer s.Close()
	text, _ := statetest.NewKey(b, s, access.PlanApify)
	raw := []byte(text)
	lim := access.Limits{1 << 40, 1 << 40, 1 << 40}
	lat := make([]time.Duration, b.N)
	next := make(chan int, b.N)
	for i := range b.N {
		next <- i
	}
	close(next)
	b.ResetTimer()
	var wg sync.WaitGroup
	for range Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				k, err := s.Lookup(raw)
				if err != nil {
					b.Error(err)
					return
				}
				if _, _, ok, err := s.Reserve(k, t0, &lim); !ok || err != nil {
					b.Error(ok, err)
					return
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
