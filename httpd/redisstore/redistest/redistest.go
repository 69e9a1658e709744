// Package redistest runs a real redis-server for tests: on a free loopback
// port, in a temporary directory, configured as production is (append-only
// file synced on every write, no eviction), and stopped, killed or
// restarted on the same port and files on demand. Tests that use it are
// built with the tag redis and need redis-server on PATH (.ci/run installs
// it before .ci/redis_test.sh). The access store's tests, the snapshot
// rollout's and the fleet harness all use it.
package redistest

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Config is the production configuration docs/fleet.md asks for: every write
// in the append-only file, synced before Redis answers, so a restart or a
// kill -9 loses no acknowledged count; and no eviction, so a full Redis
// refuses writes (503s) instead of dropping counters, keys or nonces.
const Config = "appendonly yes\nappendfsync always\nmaxmemory-policy noeviction\nsave \"\"\n"

// Server is a redis-server process.
type Server struct {
	t    testing.TB
	Addr string // 127.0.0.1:PORT
	dir  string
	cmd  *exec.Cmd
	tls  *tls.Config // the client side, when the server listens with TLS
	// caFile is the authority of the server's certificate, with TLS.
	caFile string
}

// Start starts redis-server on a free loopback port in a temporary
// directory, configured with Config; it is stopped when the test ends.
func Start(t testing.TB) *Server { return StartWith(t, Options{}) }

// Options vary the server for measurements; the zero value is Start's.
type Options struct {
	// Config replaces Config (the port, address and directory are added).
	Config string
	// Dir is where the data files go; default a test temporary directory.
	// A directory on tmpfs (/dev/shm) makes fsync free: what a disk with a
	// fast synchronous write would give.
	Dir string
	// TLS, when set, makes the server listen with TLS only (rediss://),
	// with these files (see NewTLS); clients need no certificate.
	TLS *TLS
}

// StartWith starts redis-server as Start does, varied by o.
func StartWith(t testing.TB, o Options) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatal("redis-server is not installed (apt-get install -y redis-server): the redis-tagged tests need it")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := &Server{t: t, Addr: addr, dir: o.Dir}
	if s.dir == "" {
		s.dir = t.TempDir()
	}
	if o.Config == "" {
		o.Config = Config
	}
	_, port, _ := net.SplitHostPort(addr)
	listen := "port " + port + "\n"
	if o.TLS != nil {
		listen = fmt.Sprintf("port 0\ntls-port %s\ntls-cert-file %s\ntls-key-file %s\ntls-ca-cert-file %s\ntls-auth-clients no\n", port, o.TLS.Cert, o.TLS.Key, o.TLS.CA)
		s.tls, s.caFile = o.TLS.client(t), o.TLS.CA
	}
	conf := o.Config + "bind 127.0.0.1\n" + listen + "dir " + s.dir + "\nprotected-mode yes\n"
	if err := os.WriteFile(filepath.Join(s.dir, "redis.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	s.start()
	t.Cleanup(s.Stop)
	return s
}

// URL is the -store URL of the server, database db: rediss:// with its
// authority's file as ca= when it listens with TLS.
func (s *Server) URL(db int) string {
	if s.tls != nil {
		return "rediss://" + s.Addr + "/" + strconv.Itoa(db) + "?ca=" + s.caFile
	}
	return "redis://" + s.Addr + "/" + strconv.Itoa(db)
}

// dial connects to the server, with TLS when it listens so.
func (s *Server) dial(timeout time.Duration) (net.Conn, error) {
	if s.tls != nil {
		return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, "tcp", s.Addr, s.tls)
	}
	return net.DialTimeout("tcp", s.Addr, timeout)
}

func (s *Server) start() {
	s.t.Helper()
	s.cmd = exec.Command("redis-server", filepath.Join(s.dir, "redis.conf"))
	s.cmd.Stdout, s.cmd.Stderr = nil, nil
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	// Ready when it takes connections and answers PING (or, with a
	// password, refuses it with NOAUTH): at most 10 s, polled every 20 ms.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if c, err := net.DialTimeout("tcp", s.Addr, 100*time.Millisecond); err == nil {
			c.Close()
			if s.ping() == nil {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("redis-server on %s did not start within 10 s", s.Addr)
}

// ping sends PING and reads +PONG (or -LOADING while the AOF is loaded,
// which is not ready).
func (s *Server) ping() error {
	c, err := s.dial(200 * time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	if err != nil {
		return err
	}
	if string(buf[:n]) != "+PONG\r\n" && !strings.HasPrefix(string(buf[:n]), "-NOAUTH") {
		return fmt.Errorf("PING answered %q", buf[:n])
	}
	return nil
}

// Stop stops the server (SIGTERM) and waits for it.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(os.Interrupt)
	s.cmd.Wait()
	s.cmd = nil
}

// Kill kills the server with SIGKILL, as a crash would.
func (s *Server) Kill() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// Restart starts the server again on the same port and files (after Stop
// or Kill).
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}

// NumSub returns how many subscribers channel has on the server
// (PUBSUB NUMSUB), for tests that wait until a replica listens.
func (s *Server) NumSub(channel string) (int, error) {
	c, err := s.dial(time.Second)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := fmt.Fprintf(c, "PUBSUB NUMSUB %s\r\n", channel); err != nil {
		return 0, err
	}
	// The answer is *2, $len, channel, :count.
	r := bufio.NewReader(c)
	for range 5 {
		line, err := r.ReadString('\n')
		if err != nil {
			return 0, err
		}
		if n, ok := strings.CutPrefix(strings.TrimSpace(line), ":"); ok {
			return strconv.Atoi(n)
		}
	}
	return 0, fmt.Errorf("PUBSUB NUMSUB %s: no count in the answer", channel)
}
