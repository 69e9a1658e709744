//go:build cluster

package cluster_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/httpdtest"
	"github.com/vspec/catalogue/httpd/redisstore"
	"github.com/vspec/catalogue/httpd/redisstore/redistest"
)

// The load of the benchmarks below: wrk (Debian's package; bench/wrk.sh
// installs it) with one thread and 32 keep-alive connections, the issue's
// "32 concurrent requests per replica", sending the cached keyed request
// /v1/brands?limit=1 back to back for -load.duration after a warm-up of a
// second. wrk is the client because it is cheap: on a machine whose two
// cores are shared by the client, the replicas, Redis and HAProxy, a
// client that costs as much CPU per request as the server (Go's
// net/http) halves what is measured.
var loadFor = flag.Duration("load.duration", 10*time.Second, "how long each load of BenchmarkMetering and BenchmarkFleetThroughput runs")

const (
	loadConns = 32
	loadPath  = "/v1/brands?limit=1"
	// limits under which the load is never refused: a minute, a day, a month.
	loadLimits = "1000000000,1000000000,1000000000"
)

// BenchmarkMetering is what metering in Redis adds to a keyed request:
// one replica binary, the same load, with its access state embedded
// (bbolt, counters in memory, flushed each second) and then on Redis in
// the production configuration (appendonly yes, appendfsync always) with
// the append-only file on this machine's disk ("redis-disk") and on tmpfs
// ("redis-tmpfs": fsync free, the cost of the software alone, as a disk
// with fast synchronous writes would give). -count N alternates the three,
// so each round compares runs made under the same machine load.
//
// Two loads on each replica: the saturating one (32 connections back to
// back: latency is then 32 / throughput, so what metering adds is its CPU
// per request on a machine where everything shares two cores), then a
// paced one (paced-: the same 32 connections, each pausing pacedGap after
// each answer, about 4,000 requests a second: what metering adds is then
// its round trip and Redis' service time, fsync included, and this
// virtual machine's wake-up latency, since the replica idles between
// requests), and one connection back to back (serial-: one request at a
// time, nothing queues and nothing idles: the round trip alone).
//
// It reports wrk's p50 and p99 latency and req/s; the replica's CPU per
// request (utime+stime of /proc/PID/stat) under the saturating load; and
// on Redis, from INFO over that load: its main thread's CPU per request,
// the metering script's time per call (commandstats usec_per_call of
// EVALSHA, wall time: it includes the script being preempted) and the
// requests per read event (how many auto-pipelining put in one round
// trip). load1 is the load average when the sub-benchmark started.
func BenchmarkMetering(b *testing.B) {
	bin, snap := buildReplica(b)
	b.Run("embedded", func(b *testing.B) {
		state, key := embeddedKey(b, access.PlanApify)
		r := startReplica(b, bin, "127.0.0.2", "-snapshot", snap, "-state", state)
		measure(b, r, r.addr, key, nil, true)
	})
	onRedis := func(b *testing.B, o redistest.Options) {
		srv := redistest.StartWith(b, o)
		admin := openAdmin(b, srv.URL(0))
		key, _, err := admin.Create(access.PlanApify, access.StateActive, "", "bench")
		if err != nil {
			b.Fatal(err)
		}
		r := startReplica(b, bin, "127.0.0.2", "-snapshot", snap, "-state", filepath.Join(b.TempDir(), "state"), "-store", srv.URL(0))
		measure(b, r, r.addr, key, admin, true)
	}
	b.Run("redis-disk", func(b *testing.B) { onRedis(b, redistest.Options{}) })
	b.Run("redis-tmpfs", func(b *testing.B) { onRedis(b, redistest.Options{Dir: shmDir(b)}) })
}

// BenchmarkFleetThroughput compares what the fleet serves with what one
// process serves, under the same load: one replica on the embedded store
// driven directly ("one-embedded-direct") and behind HAProxy as the fleet
// is ("one-embedded-haproxy": the like-for-like base, which isolates the
// cost of the shared store), and the harness's three replicas on Redis
// behind HAProxy, with the append-only file on the disk
// ("three-redis-disk-haproxy", production) and on tmpfs
// ("three-redis-tmpfs-haproxy"). The fleet's ratio is its req/s over one
// replica's. On a machine with two cores the fleet cannot be faster: its
// replicas, Redis, HAProxy and the client share them.
func BenchmarkFleetThroughput(b *testing.B) {
	embedded := func(b *testing.B, haproxy bool) {
		bin, snap := buildReplica(b)
		state, key := embeddedKey(b, access.PlanFree)
		args := []string{"-snapshot", snap, "-state", state}
		if haproxy {
			args = append(args, "-http.proxyProtocol", "-http.trustedProxies", "127.0.0.1/32")
		}
		r := startReplica(b, bin, "127.0.0.2", args...)
		addr := r.addr
		if haproxy {
			addr = startHAProxy(b, r.addr)
		}
		measure(b, nil, addr, key, nil, false)
	}
	fleet := func(b *testing.B, o redistest.Options) {
		f := startFleet(b, o)
		key, _ := f.key(access.PlanFree)
		measure(b, nil, f.lb, key, nil, false)
	}
	b.Run("one-embedded-direct", func(b *testing.B) { embedded(b, false) })
	b.Run("one-embedded-haproxy", func(b *testing.B) { embedded(b, true) })
	b.Run("three-redis-disk-haproxy", func(b *testing.B) { fleet(b, redistest.Options{}) })
	b.Run("three-redis-tmpfs-haproxy", func(b *testing.B) { fleet(b, redistest.Options{Dir: shmDir(b)}) })
}

// BenchmarkFsync is the disk's synchronous write, what Redis waits for
// before it answers a write with appendfsync always: b.N appends of 4 KiB
// each followed by fdatasync, to a file in the directory redistest's
// servers use (TMPDIR, the disk here) and on tmpfs. It reports the
// latency at p50, p90, p99 and the maximum.
func BenchmarkFsync(b *testing.B) {
	b.Run("disk", func(b *testing.B) { fsyncs(b, b.TempDir()) })
	b.Run("tmpfs", func(b *testing.B) { fsyncs(b, shmDir(b)) })
}

func fsyncs(b *testing.B, dir string) {
	f, err := os.Create(filepath.Join(dir, "fsync.test"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	page := make([]byte, 4096)
	lat := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		if _, err := f.Write(page); err != nil {
			b.Fatal(err)
		}
		if err := syscall.Fdatasync(int(f.Fd())); err != nil {
			b.Fatal(err)
		}
		lat[i] = time.Since(t0)
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

// replicaProc is a catalogued process started by startReplica.
type replicaProc struct {
	addr string
	cmd  *exec.Cmd
}

// buildReplica builds catalogued (or takes $BENCH_CATALOGUED, a binary
// built from another commit, to compare) and writes the small test
// catalogue, in b's temporary directory.
func buildReplica(b *testing.B) (bin, snap string) {
	dir := b.TempDir()
	bin = filepath.Join(dir, "catalogued")
	if other := os.Getenv("BENCH_CATALOGUED"); other != "" {
		bin = other
	} else if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/catalogued").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	snap = filepath.Join(dir, "small.snap")
	if err := os.WriteFile(snap, httpdtest.Snapshot(), 0o644); err != nil {
		b.Fatal(err)
	}
	return bin, snap
}

// startReplica starts catalogued on a free port of host with args and the
// load's limits, and waits until it serves.
func startReplica(b *testing.B, bin, host string, args ...string) *replicaProc {
	r := &replicaProc{addr: freePort(b, host)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	b.Cleanup(cancel)
	all := append([]string{"-listen", r.addr, "-admin.listen", "", "-mcp.listen", "", "-keys.bootstrap=false", "-log.access=false",
		"-limits.free", loadLimits, "-limits.apify", loadLimits}, args...)
	r.cmd = exec.CommandContext(ctx, bin, all...)
	stderr, _ := r.cmd.StderrPipe()
	if err := r.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.cmd.Process.Kill(); r.cmd.Wait() })
	waitLog(b, stderr, "serving http://", 90*time.Second)
	return r
}

// startHAProxy starts HAProxy as the fleet's is configured (PROXY v2,
// /readyz checks) in front of the replicas at addrs, and returns its
// frontend's address once it is ready.
func startHAProxy(b *testing.B, addrs ...string) string {
	lb := freePort(b, "127.0.0.1")
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "global\n  maxconn 4096\n%sfrontend all\n  bind %s\n  default_backend all\nbackend all\n  balance roundrobin\n%s", haproxyDefaults, lb, haproxyCheck)
	for i, a := range addrs {
		cfg.WriteString(haproxyServer("r"+strconv.Itoa(i+1), a))
	}
	conf := filepath.Join(b.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(conf, []byte(cfg.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	hp := exec.Command("haproxy", "-db", "-f", conf)
	if err := hp.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { hp.Process.Kill(); hp.Wait() })
	// Ready when a request passes: at most 20 s, every 100 ms.
	for try := 0; ; try++ {
		if out, err := exec.Command("curl", "-fsS", "-o", "/dev/null", "http://"+lb+"/readyz").CombinedOutput(); err == nil {
			break
		} else if try == 200 {
			b.Fatalf("HAProxy at %s not ready: %v %s", lb, err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return lb
}

// embeddedKey returns a new state directory for a replica on the embedded
// store, holding one active key of the plan, and that key.
func embeddedKey(b *testing.B, plan access.Plan) (state, key string) {
	state = filepath.Join(b.TempDir(), "state")
	keys, err := access.Open(state)
	if err != nil {
		b.Fatal(err)
	}
	key, _, err = keys.Create(plan, access.StateActive, "", "bench")
	keys.Close()
	if err != nil {
		b.Fatal(err)
	}
	return state, key
}

// openAdmin is an operator's connection to the Redis at url.
func openAdmin(b *testing.B, url string) *redisstore.Store {
	s := redistest.Open(b, url, redisstore.Options{Timeout: 5 * time.Second})
	b.Cleanup(func() { s.Close() })
	return s
}

// shmDir is a temporary directory on tmpfs, removed when b ends.
func shmDir(b *testing.B) string {
	dir, err := os.MkdirTemp("/dev/shm", "clusterbench")
	if err != nil {
		b.Fatalf("a directory on tmpfs: %v", err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// measure warms addr up for a second, then runs the load and reports it;
// with r, the replica's CPU per request; with admin, Redis' figures; with
// paced, then the paced load (paced- metrics) and one connection sending
// requests back to back (serial- metrics: nothing queues).
func measure(b *testing.B, r *replicaProc, addr, key string, admin *redisstore.Store, paced bool) {
	if _, err := exec.LookPath("wrk"); err != nil {
		b.Fatal("wrk is not installed (apt-get install -y wrk): the load benchmarks need it")
	}
	load := load1(b)
	runWrk(b, addr, key, loadConns, time.Second, 0)
	var cpu0 float64
	if r != nil {
		cpu0 = procCPU(b, r.cmd.Process.Pid)
	}
	if admin != nil {
		if err := admin.Client().Do(context.Background(), admin.Client().B().ConfigResetstat().Build()).Error(); err != nil {
			b.Fatal(err)
		}
	}
	info0 := redisInfo(b, admin)
	b.ResetTimer()
	res := runWrk(b, addr, key, loadConns, *loadFor, 0)
	b.StopTimer()
	var cpu float64
	if r != nil {
		cpu = procCPU(b, r.cmd.Process.Pid) - cpu0
	}
	info := redisInfo(b, admin)
	b.ReportMetric(load, "load1")
	b.ReportMetric(res.perSecond, "req/s")
	b.ReportMetric(res.p50, "p50-µs")
	b.ReportMetric(res.p99, "p99-µs")
	// Refused (503 when a store call passed -store.timeout, 50 ms by
	// default) or failed: answered fast, they would flatter the figures.
	b.ReportMetric(100*res.failed/res.requests, "%failed")
	if r != nil {
		b.ReportMetric(1e6*cpu/res.requests, "replica-cpu-µs/req")
	}
	if admin != nil {
		cpu := info["used_cpu_sys_main_thread"] + info["used_cpu_user_main_thread"] - info0["used_cpu_sys_main_thread"] - info0["used_cpu_user_main_thread"]
		b.ReportMetric(1e6*cpu/res.requests, "redis-cpu-µs/req")
		b.ReportMetric(info["evalsha_usec_per_call"], "script-µs")
		b.ReportMetric(res.requests/max(1, info["total_reads_processed"]-info0["total_reads_processed"]), "req/read")
	}
	if paced {
		p := runWrk(b, addr, key, loadConns, *loadFor, pacedGap)
		b.ReportMetric(p.perSecond, "paced-req/s")
		b.ReportMetric(p.p50, "paced-p50-µs")
		b.ReportMetric(p.p99, "paced-p99-µs")
		b.ReportMetric(100*p.failed/p.requests, "paced-%failed")
		one := runWrk(b, addr, key, 1, *loadFor, 0)
		b.ReportMetric(one.p50, "serial-p50-µs")
		b.ReportMetric(one.p99, "serial-p99-µs")
	}
}

// pacedGap is the pause of each of the paced load's 32 connections after
// each answer: about 32 / 8 ms = 4,000 requests a second, which every
// store here serves with CPU to spare, so the difference of latencies is
// the store's round trip and service time rather than queueing.
const pacedGap = 8 * time.Millisecond

// wrkResult is what one wrk run reports.
type wrkResult struct {
	requests, failed, perSecond, p50, p99 float64
}

var (
	wrkPercentile = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$`)
	wrkRequests   = regexp.MustCompile(`(?m)^\s+(\d+) requests in`)
	wrkPerSecond  = regexp.MustCompile(`(?m)^Requests/sec:\s+([\d.]+)`)
	wrkFailed     = regexp.MustCompile(`(?m)^\s+Non-2xx or 3xx responses: (\d+)|Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

// runWrk runs wrk against addr with conns connections for d and reads its
// summary; with gap, each
// connection pauses that long after each answer (wrk's delay()).
func runWrk(b *testing.B, addr, key string, conns int, d, gap time.Duration) wrkResult {
	args := []string{"-t1", "-c" + strconv.Itoa(conns), "-d" + d.String(), "--latency", "-H", "X-Api-Key: " + key}
	if gap > 0 {
		script := filepath.Join(b.TempDir(), "paced.lua")
		if err := os.WriteFile(script, []byte(fmt.Sprintf("function delay() return %d end\n", gap.Milliseconds())), 0o600); err != nil {
			b.Fatal(err)
		}
		args = append(args, "-s", script)
	}
	out, err := exec.Command("wrk", append(args, "http://"+addr+loadPath)...).CombinedOutput()
	if err != nil {
		b.Fatalf("wrk: %v\n%s", err, out)
	}
	var res wrkResult
	for _, m := range wrkPercentile.FindAllStringSubmatch(string(out), -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		v *= map[string]float64{"us": 1, "ms": 1e3, "s": 1e6}[m[3]]
		if m[1] == "50" {
			res.p50 = v
		} else {
			res.p99 = v
		}
	}
	if m := wrkRequests.FindStringSubmatch(string(out)); m != nil {
		res.requests, _ = strconv.ParseFloat(m[1], 64)
	}
	if m := wrkPerSecond.FindStringSubmatch(string(out)); m != nil {
		res.perSecond, _ = strconv.ParseFloat(m[1], 64)
	}
	for _, m := range wrkFailed.FindAllStringSubmatch(string(out), -1) {
		for _, n := range m[1:] {
			v, _ := strconv.ParseFloat(n, 64)
			res.failed += v
		}
	}
	if res.requests == 0 || res.p50 == 0 || res.p99 == 0 {
		b.Fatalf("cannot read wrk's summary:\n%s", out)
	}
	return res
}

// procCPU returns the CPU time of process pid so far, in seconds.
func procCPU(b *testing.B, pid int) float64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command, which is in parentheses: utime and
	// stime are the 14th and 15th of the line, in clock ticks (100 a
	// second on Linux).
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100
}

// redisInfo reads Redis' INFO: every numeric field, and
// evalsha_usec_per_call from commandstats; nothing without admin.
func redisInfo(b *testing.B, admin *redisstore.Store) map[string]float64 {
	if admin == nil {
		return nil
	}
	c := admin.Client()
	text, err := c.Do(context.Background(), c.B().Info().Section("everything").Build()).ToString()
	if err != nil {
		b.Fatal(err)
	}
	m := map[string]float64{}
	for _, line := range strings.Split(text, "\n") {
		name, val, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		if name == "cmdstat_evalsha" {
			for _, kv := range strings.Split(val, ",") {
				if k, v, ok := strings.Cut(kv, "="); ok && k == "usec_per_call" {
					m["evalsha_usec_per_call"], _ = strconv.ParseFloat(v, 64)
				}
			}
			continue
		}
		if v, err := strconv.ParseFloat(val, 64); err == nil {
			m[name] = v
		}
	}
	return m
}

// load1 is the load average of the last minute.
func load1(b *testing.B) float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		b.Fatal(err)
	}
	v, _ := strconv.ParseFloat(strings.Fields(string(raw))[0], 64)
	return v
}

// reportPercentiles reports lat's p50, p90, p99 and maximum in µs.
func reportPercentiles(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	at := func(q float64) float64 {
		i := int(math.Ceil(q*float64(len(lat)))) - 1
		return float64(lat[max(0, i)].Nanoseconds()) / 1e3
	}
	b.ReportMetric(at(0.5), "p50-µs")
	b.ReportMetric(at(0.9), "p90-µs")
	b.ReportMetric(at(0.99), "p99-µs")
	b.ReportMetric(at(1), "max-µs")
}
