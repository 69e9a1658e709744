// Package redistest runs a real redis-server for tests that need one
// (those behind the redis build tag): on a free loopback port, in a
// temporary directory, stopped when the test ends. It imports nothing of
// the module.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Server is a redis-server a test started.
type Server struct {
	Addr string // host:port
	tb   testing.TB
	bin  string
	dir  string
	cmd  *exec.Cmd
}

// Start starts redis-server and returns it once it answers PING; it is
// killed when the test ends. The test fails when redis-server is not
// installed (apt-get install -y redis-server) or does not answer within
// 10 s.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		tb.Fatalf("redis-server is not installed (apt-get install -y redis-server): %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &Server{Addr: ln.Addr().String(), tb: tb, bin: bin, dir: tb.TempDir()}
	ln.Close()
	tb.Cleanup(s.Stop)
	s.Restart()
	return s
}

// Stop kills the server (as a crash would: nothing is saved).
func (s *Server) Stop() {
	if s.cmd != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

// Restart starts the server again on the same address after Stop, and
// waits until it answers PING.
func (s *Server) Restart() {
	s.tb.Helper()
	_, port, _ := net.SplitHostPort(s.Addr)
	s.cmd = exec.Command(s.bin, "--port", port, "--bind", "127.0.0.1", "--dir", s.dir, "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--logfile", filepath.Join(s.dir, "redis.log"))
	if err := s.cmd.Start(); err != nil {
		s.tb.Fatal(err)
	}
	for range 400 { // 10 s
		if Ping(s.Addr) == nil {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	s.tb.Fatalf("redis-server on %s did not answer PING within 10 s (log in %s)", s.Addr, s.dir)
}

// Ping sends PING to addr in the inline protocol and wants +PONG.
func Ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// NumSub returns how many subscribers channel has on the server at addr
// (PUBSUB NUMSUB).
func NumSub(addr, channel string) (int, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := fmt.Fprintf(c, "PUBSUB NUMSUB %s\r\n", channel); err != nil {
		return 0, err
	}
	// *2 $len channel :count
	r := bufio.NewReader(c)
	for range 5 {
		line, err := r.ReadString('\n')
		if err != nil {
			return 0, err
		}
		if n, ok := strings.CutPrefix(strings.TrimSpace(line), ":"); ok {
			var count int
			_, err := fmt.Sscan(n, &count)
			return count, err
		}
	}
	return 0, fmt.Errorf("PUBSUB NUMSUB %s: no count in the answer", channel)
}
