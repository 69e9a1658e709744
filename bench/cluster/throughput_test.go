//go:build cluster

package cluster_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/httpdtest"
)

// BenchmarkFleetThroughput compares what a fleet serves with what one
// process serves: one replica on the embedded store, driven directly, and
// the three replicas on Redis behind HAProxy, each with 32 keep-alive
// connections making b.N cached keyed requests (/v1/brands?limit=1). On a
// machine with two cores the fleet cannot be faster (its replicas, Redis
// and HAProxy share them); the figure is the cost of the fleet's path.
func BenchmarkFleetThroughput(b *testing.B) {
	b.Run("one-replica-embedded", func(b *testing.B) {
		dir := b.TempDir()
		bin := filepath.Join(dir, "catalogued")
		if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/catalogued").CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
		snap := filepath.Join(dir, "small.snap")
		if err := os.WriteFile(snap, httpdtest.Snapshot(), 0o644); err != nil {
			b.Fatal(err)
		}
		state := filepath.Join(dir, "state")
		keys, err := access.Open(state)
		if err != nil {
			b.Fatal(err)
		}
		key, _, err := keys.Create(access.PlanFree, access.StateActive, "", "bench")
		keys.Close()
		if err != nil {
			b.Fatal(err)
		}
		addr := freePort(b, "127.0.0.2")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "-listen", addr, "-snapshot", snap, "-state", state, "-admin.listen", "", "-mcp.listen", "",
			"-keys.bootstrap=false", "-limits.free", "1000000,10000000,100000000", "-log.access=false")
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		waitLog(b, stderr, "serving http://", 90*time.Second)
		drive(b, addr, key)
	})
	b.Run("three-replicas-redis-haproxy", func(b *testing.B) {
		f := startFleet(b)
		key, _ := f.key(access.PlanFree)
		drive(b, f.lb, key)
	})
}

// drive makes b.N requests over 32 keep-alive connections and reports
// requests per second.
func drive(b *testing.B, addr, key string) {
	const conns = 32
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	get := func() int {
		req, _ := http.NewRequest("GET", "http://"+addr+"/v1/brands?limit=1", nil)
		req.Header.Set("X-Api-Key", key)
		res, err := c.Do(req)
		if err != nil {
			return 0
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	var warm sync.WaitGroup
	for range conns { // open the connections: 32 at once
		warm.Add(1)
		go func() { defer warm.Done(); get() }()
	}
	warm.Wait()
	next := make(chan struct{}, b.N)
	for range b.N {
		next <- struct{}{}
	}
	close(next)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				if code := get(); code != 200 {
					b.Errorf("status %d", code)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}
