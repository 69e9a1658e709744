package connguard

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/httpdtest"
	"github.com/vspec/catalogue/httpd/ratelog"
)

// serve runs an HTTP server answering 200 "ok" on a guarded loopback
// listener and returns its address and the guard.
func serve(t *testing.T, opts Options) (string, *Listener) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if opts.Log == nil {
		opts.Log = ratelog.New(log.New(io.Discard, "", 0), time.Minute)
	}
	g := Wrap(ln, opts)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }),
		ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(g)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), g
}

// dialFrom connects to addr from the loopback address src (127.0.0.0/8
// is all loopback on Linux, so each src is a different client).
func dialFrom(t *testing.T, src, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 2 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// get sends one request on c and returns the status and body.
func get(t *testing.T, c net.Conn) (int, string) {
	t.Helper()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return 0, err.Error()
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 && !strings.HasPrefix(ct, "application/problem+json") {
		t.Errorf("refusal %d has Content-Type %q, want application/problem+json", resp.StatusCode, ct)
	}
	return resp.StatusCode, string(b)
}

func TestPerClientCap(t *testing.T) {
	addr, g := serve(t, Options{MaxConnsPerClient: 3})
	var held []net.Conn
	for range 3 {
		held = append(held, dialFrom(t, "127.0.0.2", addr))
	}
	if code, body := get(t, held[0]); code != 200 {
		t.Fatalf("a client within its cap: %d %s", code, body)
	}
	over := dialFrom(t, "127.0.0.2", addr)
	if code, body := get(t, over); code != 429 || !strings.Contains(body, "127.0.0.2/32") {
		t.Fatalf("the fourth connection of one client: %d %s, want 429 naming its network", code, body)
	}
	// Another client is not affected.
	if code, _ := get(t, dialFrom(t, "127.0.0.3", addr)); code != 200 {
		t.Fatalf("another client: %d, want 200", code)
	}
	// Closing one gives the place back.
	held[1].Close()
	waitFor(t, func() bool { return g.Open() == 3 })
	if code, _ := get(t, dialFrom(t, "127.0.0.2", addr)); code != 200 {
		t.Fatalf("after a close: %d, want 200", code)
	}
}

func TestTotalCapAndExempt(t *testing.T) {
	addr, g := serve(t, Options{MaxConns: 4, MaxConnsPerClient: 1, Exempt: []netip.Prefix{netip.MustParsePrefix("127.0.0.9/32")}})
	// An exempt peer (a trusted proxy) is not held to the per-client cap.
	for range 3 {
		if code, _ := get(t, dialFrom(t, "127.0.0.9", addr)); code != 200 {
			t.Fatalf("exempt peer: %d, want 200", code)
		}
	}
	dialFrom(t, "127.0.0.4", addr)
	waitFor(t, func() bool { return g.Open() == 4 })
	if code, body := get(t, dialFrom(t, "127.0.0.5", addr)); code != 503 || !strings.Contains(body, "limit of 4 open connections") {
		t.Fatalf("over the total cap: %d %s, want 503", code, body)
	}
	if g.Refused() != 1 {
		t.Fatalf("refused %d, want 1", g.Refused())
	}
}

func TestIPv6GroupedBy64(t *testing.T) {
	g := Wrap(nil, Options{})
	a, _ := g.clientOf(peerOf(fakeConn{addr: &net.TCPAddr{IP: net.ParseIP("2001:db8:1:2:aaaa::1")}}))
	b, _ := g.clientOf(peerOf(fakeConn{addr: &net.TCPAddr{IP: net.ParseIP("2001:db8:1:2:bbbb::2")}}))
	c, _ := g.clientOf(peerOf(fakeConn{addr: &net.TCPAddr{IP: net.ParseIP("2001:db8:1:3::1")}}))
	if a != b || a == c || a.String() != "2001:db8:1:2::/64" {
		t.Fatalf("IPv6 networks %s %s %s: want one /64 for the first two", a, b, c)
	}
}

// TestPeer: an admitted connection carries its TCP peer as RemoteAddr
// gives it (an IPv4 peer of an IPv6 socket stays mapped, and is counted
// as the IPv4 client); a connection that is not TCP has none and is not
// counted per client.
func TestPeer(t *testing.T) {
	g := Wrap(nil, Options{MaxConnsPerClient: 1})
	for _, tc := range []struct {
		addr    net.Addr
		peer    string
		client  string
		counted bool
	}{
		{&net.TCPAddr{IP: net.ParseIP("192.0.2.7").To4()}, "192.0.2.7", "192.0.2.7/32", true},
		{&net.TCPAddr{IP: net.ParseIP("192.0.2.8")}, "::ffff:192.0.2.8", "192.0.2.8/32", true},
		{&net.TCPAddr{IP: net.ParseIP("2001:db8::9")}, "2001:db8::9", "2001:db8::/64", true},
		{&net.UnixAddr{Name: "@x", Net: "unix"}, "invalid IP", "invalid Prefix", false},
	} {
		c := g.admit(fakeConn{addr: tc.addr})
		gc, ok := c.(*conn)
		if !ok {
			t.Fatalf("%v: not admitted (%T)", tc.addr, c)
		}
		if gc.Peer().String() != tc.peer || gc.client.String() != tc.client || gc.counted != tc.counted {
			t.Errorf("%v: peer %s, client %s counted %v; want %s, %s %v", tc.addr, gc.Peer(), gc.client, gc.counted, tc.peer, tc.client, tc.counted)
		}
	}
}

type fakeConn struct {
	net.Conn
	addr net.Addr
}

func (f fakeConn) RemoteAddr() net.Addr { return f.addr }

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 200 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition not reached within 2 s")
}

// TestDescriptorExhaustion runs a guarded server with no caps in a child
// process whose descriptor limit is 64, opens 120 connections to it, and
// checks that the child survives (an unguarded fasthttp server returns from
// Serve on EMFILE: CONNGUARD_UNGUARDED=1 shows it) and answers again once
// they close.
func TestDescriptorExhaustion(t *testing.T) {
	if os.Getenv("CONNGUARD_CHILD") == "1" {
		exhaustionChild()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestDescriptorExhaustion$")
	cmd.Env = append(os.Environ(), "CONNGUARD_CHILD=1", "CONNGUARD_UNGUARDED="+os.Getenv("CONNGUARD_UNGUARDED"))
	stdout, _ := cmd.StdoutPipe()
	var stderr httpdtest.LockedBuffer // written by the child's copier while the test reads it
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	br := bufio.NewReader(stdout)
	line, err := br.ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "LISTEN ")
	if err != nil || !ok {
		t.Fatalf("child did not start: %q %v %s", line, err, stderr.String())
	}
	var conns []net.Conn
	for range 120 {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break
		}
		conns = append(conns, c)
	}
	// Make the child accept as many as it can: past 64 descriptors accept
	// fails with EMFILE.
	time.Sleep(300 * time.Millisecond)
	for _, c := range conns {
		c.Close()
	}
	var code int
	for range 100 { // up to ~10 s while the child's backoff and the closes settle
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			code, _ = get(t, c)
			c.Close()
			if code == 200 {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code != 200 {
		t.Fatalf("the child does not answer after descriptor exhaustion; its log:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "too many open files") {
		t.Fatalf("descriptors were never exhausted (the test proves nothing); child log:\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("child gone: %v", err)
	}
}

func exhaustionChild() {
	rl := syscall.Rlimit{Cur: 64, Max: 64}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	g := Wrap(ln, Options{Name: "child", Log: ratelog.New(log.New(os.Stderr, "", 0), time.Second)})
	fmt.Printf("LISTEN %s\n", ln.Addr())
	// fasthttp, as the API serves: unguarded, its Serve returns on EMFILE.
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.WriteString("ok") }, ReadTimeout: 5 * time.Second}
	var served net.Listener = g
	if os.Getenv("CONNGUARD_UNGUARDED") == "1" {
		served = ln
	}
	err = srv.Serve(served)
	fmt.Fprintln(os.Stderr, "Serve returned:", err)
	os.Exit(3)
}
