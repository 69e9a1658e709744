package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	proxyproto "github.com/pires/go-proxyproto"

	"github.com/vspec/catalogue/bench"
	"github.com/vspec/catalogue/httpd/httpdtest"
)

// The abuse tests attack the real binary on loopback as a hostile client
// would, each bounded in connections and time: descriptor exhaustion under
// a low open-file limit, slowloris, slow uploads, oversized headers and
// bodies, and forged client addresses. 127.0.0.0/8 is all loopback on
// Linux, so each 127.0.0.x source address is a different client network.

// A program the tests run as a child process, built once per test run
// from the package pkg into a temporary directory that TestMain removes.
type program struct {
	pkg, name string
	once      sync.Once
	path      string
	err       error
}

var (
	catalogued = &program{pkg: ".", name: "catalogued"}
	catalogue  = &program{pkg: "../catalogue", name: "catalogue"} // the operator's CLI
)

// build returns the program's path, building it on the first call.
func (p *program) build(t testing.TB) string {
	t.Helper()
	p.once.Do(func() {
		dir, err := os.MkdirTemp("", p.name+"-test")
		if err != nil {
			p.err = err
			return
		}
		p.path = filepath.Join(dir, p.name)
		if out, err := exec.Command("go", "build", "-o", p.path, p.pkg).CombinedOutput(); err != nil {
			p.err = fmt.Errorf("go build %s: %v\n%s", p.pkg, err, out)
		}
	})
	if p.err != nil {
		t.Fatal(p.err)
	}
	return p.path
}

// binary builds catalogued once per test run.
func binary(t testing.TB) string {
	t.Helper()
	return catalogued.build(t)
}

// server is a catalogued child process.
type server struct {
	cmd    *exec.Cmd
	addr   string
	mcp    string
	logs   *logWatcher // standard error
	stdout *logWatcher
}

// startServer runs the binary on the small test catalogue with args,
// under an open-file limit when nofile > 0, and waits until it answers.
func startServer(t testing.TB, nofile int, args ...string) *server {
	t.Helper()
	s := spawnServer(t, nofile, args...)
	s.logs.waitFor(t, "serving http://", 60*time.Second)
	return s
}

// spawnServer starts what startServer does, without waiting: on the
// small test catalogue, in a state directory of its own (args may name
// another: the last -state wins, as any flag given twice), without the
// admin and MCP listeners unless args ask for them, in an environment
// without CATALOGUED_ variables. The process is killed when the test ends.
func spawnServer(t testing.TB, nofile int, args ...string) *server {
	t.Helper()
	dir := t.TempDir()
	snap := filepath.Join(dir, "small.snap")
	if err := os.WriteFile(snap, httpdtest.Snapshot(), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &server{addr: freePort(t)}
	base := []string{"-listen", s.addr, "-snapshot", snap, "-state", filepath.Join(dir, "state"), "-admin.listen", ""}
	if !slices.Contains(args, "-mcp.listen") {
		base = append(base, "-mcp.listen", "")
	}
	all := append(base, args...)
	for i, a := range all {
		if a == "-mcp.listen" && all[i+1] == "AUTO" {
			s.mcp = freePort(t)
			all[i+1] = s.mcp
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	if nofile > 0 {
		// The shell's ulimit sets the soft and the hard limit, so the
		// server cannot raise it back.
		s.cmd = exec.CommandContext(ctx, "sh", append([]string{"-c", "ulimit -n " + strconv.Itoa(nofile) + ` && exec "$0" "$@"`, binary(t)}, all...)...)
	} else {
		s.cmd = exec.CommandContext(ctx, binary(t), all...)
	}
	s.cmd.Env = cleanEnv()
	stderr, _ := s.cmd.StderrPipe()
	stdout, _ := s.cmd.StdoutPipe()
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	s.logs, s.stdout = watch(stderr), watch(stdout)
	return s
}

// alive fails the test when the server process has exited.
func (s *server) alive(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.Signal(0)); err != nil {
		s.logs.mu.Lock()
		defer s.logs.mu.Unlock()
		t.Fatalf("the server exited: %v\n%s", err, strings.Join(s.logs.lines, "\n"))
	}
}

// rssMB returns the server's resident set size in MB.
func (s *server) rssMB(t *testing.T) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.Atoi(f[1])
			return kb / 1024
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

func dialFrom(src, addr string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 2 * time.Second}
	return d.Dial("tcp", addr)
}

// client is a normal client on 127.0.0.1 with keep-alive connections.
func client() *http.Client { return bench.LoopbackClient() }

// p99 makes n health requests with c and returns the status counts and the
// 99th percentile latency.
func p99(t *testing.T, c *http.Client, addr string, n int) (map[int]int, time.Duration) {
	t.Helper()
	codes, lat := bench.Probe(c, "http://"+addr+"/v1/health", n, time.Time{})
	if len(lat) == 0 {
		return codes, 0
	}
	return codes, lat[len(lat)*99/100]
}

// TestAbuseConnections: one client opening more connections than the
// process has descriptors gets its cap (the rest 429 problems), the
// process lives, and a normal client is served quickly throughout.
func TestAbuseConnections(t *testing.T) {
	s := startServer(t, 256, "-http.maxConnsPerClient", "64", "-http.readTimeout", "3s", "-http.idleTimeout", "3s")
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	refused := 0
	for range 300 {
		c, err := dialFrom("127.0.0.2", s.addr)
		if err != nil {
			break
		}
		held = append(held, c)
	}
	// Connections over the cap are answered 429 and closed at once.
	for _, c := range held[64:] {
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		line, _ := bufio.NewReader(c).ReadString('\n')
		if strings.HasPrefix(line, "HTTP/1.1 429") {
			refused++
		}
	}
	if refused < len(held)-64-5 {
		t.Fatalf("%d of %d connections over the per-client cap were refused with 429", refused, len(held)-64)
	}
	codes, lat := p99(t, client(), s.addr, 200)
	if codes[200] != 200 || lat > 100*time.Millisecond {
		t.Fatalf("a normal client while another holds its cap: %v, p99 %s (want 200 OK, under 100 ms)", codes, lat)
	}
	s.alive(t)
}

// TestAbuseDescriptorExhaustion: with the caps set above the open-file
// limit, accept fails with EMFILE; the process logs it, keeps running and
// answers again once the attacker's connections are gone (fasthttp alone
// returns from Serve and the process exits).
func TestAbuseDescriptorExhaustion(t *testing.T) {
	s := startServer(t, 128, "-http.maxConns", "100000", "-http.maxConnsPerClient", "0", "-http.readTimeout", "2s", "-http.idleTimeout", "2s")
	var held []net.Conn
	for range 200 {
		c, err := dialFrom("127.0.0.3", s.addr)
		if err != nil {
			break
		}
		held = append(held, c)
	}
	s.logs.waitFor(t, "too many open files", 10*time.Second)
	for _, c := range held {
		c.Close()
	}
	s.alive(t)
	ok := false
	for range 50 { // up to ~10 s for the server's read timeouts to free descriptors
		if code, err := health(s.addr); err == nil && code == 200 {
			ok = true
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !ok {
		t.Fatal("no answer after descriptor exhaustion")
	}
	s.alive(t)
}

// TestAbuseSlowClients: slowloris headers and slow uploads are bounded by
// the read timeout and the body limits; a normal client's p99 stays under
// 100 ms meanwhile, and 400 slow 4 MiB uploads keep RSS under 600 MB.
func TestAbuseSlowClients(t *testing.T) {
	s := startServer(t, 0, "-http.readTimeout", "2s")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	closedByServer := make(chan bool, 100)
	// clients runs n clients at once, client i on a connection from
	// 127.0.0.(first+i%spread), each until talk returns.
	clients := func(n, first, spread int, talk func(i int, c net.Conn)) {
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := dialFrom("127.0.0."+strconv.Itoa(first+i%spread), s.addr)
				if err != nil {
					return
				}
				defer c.Close()
				talk(i, c)
			}()
		}
	}
	// pause waits 100 ms and reports whether the clients are to go on.
	pause := func() bool {
		select {
		case <-stop:
			return false
		case <-time.After(100 * time.Millisecond):
			return true
		}
	}
	// Slowloris: 50 connections sending a header byte every 100 ms.
	clients(50, 4, 1, func(i int, c net.Conn) {
		msg := "GET /v1/health HTTP/1.1\r\nHost: x\r\n" + strings.Repeat("X-Slow: "+strconv.Itoa(i)+"\r\n", 100)
		for j := range len(msg) {
			if !pause() {
				return
			}
			if _, err := c.Write([]byte{msg[j]}); err != nil {
				closedByServer <- true // the read timeout works
				return
			}
		}
	})
	// Slow uploads: 400 connections announcing 4 MiB key requests, and 400
	// chunked ones trickling 1 KiB every 100 ms towards 4 MiB.
	var refusedAtHeader int64
	var mu sync.Mutex
	clients(400, 10, 8, func(_ int, c net.Conn) {
		fmt.Fprintf(c, "POST /v1/keys/demo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", 4<<20)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, _ := bufio.NewReader(c).ReadString('\n')
		if strings.HasPrefix(line, "HTTP/1.1 413") {
			mu.Lock()
			refusedAtHeader++
			mu.Unlock()
		}
	})
	clients(400, 20, 8, func(_ int, c net.Conn) {
		io.WriteString(c, "POST /v1/keys/demo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
		chunk := "400\r\n" + strings.Repeat("x", 1024) + "\r\n"
		for range 40 {
			if !pause() {
				return
			}
			if _, err := io.WriteString(c, chunk); err != nil {
				return
			}
		}
	})
	time.Sleep(time.Second)
	codes, lat := p99(t, client(), s.addr, 300)
	rss := s.rssMB(t)
	// The slowloris connections outlive no read timeout (2 s): give them 5 s.
	deadline := time.After(5 * time.Second)
	for n := 0; n < 50; n++ {
		select {
		case <-closedByServer:
		case <-deadline:
			t.Errorf("only %d of 50 slowloris connections were closed by the server within 5 s", n)
			n = 50
		}
	}
	close(stop)
	wg.Wait()
	if codes[200] != 300 || lat > 100*time.Millisecond {
		t.Errorf("a normal client under slow clients: %v, p99 %s (want 300 OK under 100 ms)", codes, lat)
	}
	if refusedAtHeader < 390 {
		t.Errorf("%d of 400 announced 4 MiB uploads were refused with 413 before the body", refusedAtHeader)
	}
	if rss > 600 {
		t.Errorf("RSS %d MB under slow uploads, want under 600 MB", rss)
	}
	t.Logf("normal client p99 %s; RSS %d MB with 400 announced 4 MiB uploads, 400 chunked trickles and 50 slowloris connections", lat, rss)
	s.alive(t)
}

// TestAbuseHeaderLimits: oversized headers get a 431 problem.
func TestAbuseHeaderLimits(t *testing.T) {
	s := startServer(t, 0, "-http.maxHeaderBytes", "4096")
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 5000))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 431 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
		t.Fatalf("oversized headers: %d %s %s", res.StatusCode, res.Header.Get("Content-Type"), b)
	}
}

// TestAbuseProxyHeaders: behind a trusted proxy speaking PROXY protocol
// v2, each client's own address carries the per-network limits (the MCP
// surface's keyless calls, 2 a minute here); a client that is not a
// trusted proxy cannot send a PROXY header at all.
func TestAbuseProxyHeaders(t *testing.T) {
	s := startServer(t, 0, "-mcp.listen", "AUTO", "-mcp.perMinute", "2", "-http.trustedProxies", "127.0.0.1/32", "-http.proxyProtocol")
	s.logs.waitFor(t, "serving MCP at", 10*time.Second)
	call := func(src, claimed string, xff ...string) int {
		t.Helper()
		c, err := dialFrom(src, s.mcp)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if claimed != "" {
			h := proxyproto.HeaderProxyFromAddrs(2, &net.TCPAddr{IP: net.ParseIP(claimed), Port: 40000}, c.RemoteAddr())
			if _, err := h.WriteTo(c); err != nil {
				t.Fatal(err)
			}
		}
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_catalogue","arguments":{"q":"golf"}}}`
		var req bytes.Buffer
		fmt.Fprintf(&req, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n", len(body))
		for _, x := range xff {
			fmt.Fprintf(&req, "X-Forwarded-For: %s\r\n", x)
		}
		req.WriteString("\r\n" + body)
		c.Write(req.Bytes())
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0 // closed without an answer
		}
		res.Body.Close()
		return res.StatusCode
	}
	for i := range 2 {
		if code := call("127.0.0.1", "203.0.113.7"); code != 200 {
			t.Fatalf("call %d of client A through the proxy: %d", i+1, code)
		}
	}
	if code := call("127.0.0.1", "203.0.113.7"); code != 429 {
		t.Fatalf("client A's third call in a minute: %d, want 429", code)
	}
	// X-Forwarded-For lines the client adds do not move it to another network.
	if code := call("127.0.0.1", "203.0.113.7", "198.51.100.1", "198.51.100.2"); code != 429 {
		t.Fatalf("client A with forged X-Forwarded-For lines: %d, want 429", code)
	}
	if code := call("127.0.0.1", "203.0.113.8"); code != 200 {
		t.Fatalf("client B through the same proxy: %d, want 200", code)
	}
	// A peer that is not a trusted proxy may not claim an address.
	if code := call("127.0.0.6", "203.0.113.9"); code != 0 {
		t.Fatalf("a PROXY header from an untrusted peer: %d, want the connection closed", code)
	}
	// And a trusted proxy must send one.
	if code := call("127.0.0.1", ""); code != 0 {
		t.Fatalf("a trusted proxy without a PROXY header: %d, want the connection closed", code)
	}
	s.alive(t)
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, p := range []*program{catalogued, catalogue} {
		if p.path != "" {
			os.RemoveAll(filepath.Dir(p.path))
		}
	}
	os.Exit(code)
}
