// Package connguard owns the admission of TCP connections to the servers
// of the process (the API, the agent surface, the admin API): it wraps a
// net.Listener so that no client can stop the process or starve others by
// opening connections.
//
//   - Accept never fails for lack of resources. EMFILE, ENFILE, ENOBUFS and
//     ENOMEM are logged (once a minute) and retried with a backoff, instead
//     of being returned to the server, whose Serve would then return and
//     end the process. While descriptors are exhausted, a spare descriptor
//     kept for the purpose is released to accept one pending connection and
//     close it at once, so clients queued in the kernel are refused promptly
//     instead of hanging.
//   - A total cap (MaxConns, below the descriptor limit) and a cap per
//     client network (MaxConnsPerClient: an IPv4 address or an IPv6 /64).
//     A connection over a cap is answered with one RFC 9457 problem (503 or
//     429, Connection: close) and closed before any request is read.
//     Peers in Exempt (trusted reverse proxies, which carry many clients on
//     few addresses) are counted in the total only.
//
// The guard counts the TCP peer: it sits under a PROXY protocol listener,
// never above it, because reading a PROXY header may block and the accept
// loop must not.
//
// It imports only the standard library and httpd/ratelog.
package connguard

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vspec/catalogue/httpd/ratelog"
)

// Options configures a guarded listener.
type Options struct {
	// Name names the listener in logs ("api", "mcp", "admin").
	Name string
	// MaxConns caps the connections open at once; 0 means no cap.
	MaxConns int
	// MaxConnsPerClient caps the connections open at once from one client
	// network (IPv4 address or IPv6 /64); 0 means no cap.
	MaxConnsPerClient int
	// Exempt are peers counted in MaxConns only (trusted proxies).
	Exempt []netip.Prefix
	// Log receives accept errors and refusals, rate-limited. Default
	// ratelog.Default.
	Log *ratelog.Logger
}

// Listener is a guarded net.Listener. It is safe for concurrent use.
type Listener struct {
	net.Listener
	opts Options

	open    atomic.Int64 // connections accepted and not yet closed
	refused atomic.Int64 // connections refused by a cap or closed for lack of descriptors

	mu      sync.Mutex
	clients map[netip.Prefix]int

	spare *os.File // released under EMFILE to accept-and-close one connection
}

// Wrap guards ln.
func Wrap(ln net.Listener, opts Options) *Listener {
	if opts.Log == nil {
		opts.Log = ratelog.Default
	}
	if opts.Name == "" {
		opts.Name = "http"
	}
	l := &Listener{Listener: ln, opts: opts, clients: map[netip.Prefix]int{}}
	l.spare, _ = os.Open(os.DevNull) // best effort: without it, exhaustion is only waited out
	return l
}

// Open returns the number of connections accepted and not yet closed.
func (l *Listener) Open() int64 { return l.open.Load() }

// Refused returns the number of connections refused so far.
func (l *Listener) Refused() int64 { return l.refused.Load() }

// Close closes the listener (open connections stay open).
func (l *Listener) Close() error {
	l.mu.Lock()
	if l.spare != nil {
		l.spare.Close()
		l.spare = nil
	}
	l.mu.Unlock()
	return l.Listener.Close()
}

// Accept returns the next admitted connection. It returns an error only
// when the listener is closed or fails for a reason other than resources.
func (l *Listener) Accept() (net.Conn, error) {
	backoff := 5 * time.Millisecond
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if !resourceError(err) {
				return nil, err
			}
			l.opts.Log.Printf("accept "+l.opts.Name, "cannot accept connections on %s: %v; retrying (raise the descriptor limit or lower -http.maxConns)", l.Addr(), err)
			l.shed()
			time.Sleep(backoff)
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		if gc := l.admit(c); gc != nil {
			return gc, nil
		}
	}
}

// admit counts c against the caps, or refuses and closes it (nil).
func (l *Listener) admit(c net.Conn) net.Conn {
	if n := l.open.Add(1); l.opts.MaxConns > 0 && n > int64(l.opts.MaxConns) {
		l.open.Add(-1)
		l.refuse(c, 503, "Service Unavailable", "The server has reached its limit of "+strconv.Itoa(l.opts.MaxConns)+" open connections. Retry shortly.", "total")
		return nil
	}
	peer := peerOf(c)
	client, counted := l.clientOf(peer)
	if counted {
		l.mu.Lock()
		n := l.clients[client] + 1
		if l.opts.MaxConnsPerClient > 0 && n > l.opts.MaxConnsPerClient {
			l.mu.Unlock()
			l.open.Add(-1)
			l.refuse(c, 429, "Too Many Requests", "Your network ("+client.String()+") has "+strconv.Itoa(l.opts.MaxConnsPerClient)+
				" connections open, the most one client may have. Reuse connections (keep-alive) instead of opening more.", "per client")
			return nil
		}
		l.clients[client] = n
		l.mu.Unlock()
	}
	return &conn{Conn: c, l: l, peer: peer, client: client, counted: counted}
}

// peerOf is the address of c's TCP peer as netip.AddrFromSlice gives its
// IP (an IPv4 peer of an IPv6 socket stays mapped); the zero Addr when c
// is not TCP.
func peerOf(c net.Conn) netip.Addr {
	if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		if ip, ok := netip.AddrFromSlice(ta.IP); ok {
			return ip
		}
	}
	return netip.Addr{}
}

// clientOf returns the client network of a connection's peer, and false
// when it is not counted per client (an exempt peer, or not an IP
// connection: the zero peer).
func (l *Listener) clientOf(peer netip.Addr) (netip.Prefix, bool) {
	if !peer.IsValid() {
		return netip.Prefix{}, false
	}
	ip := peer.Unmap()
	for _, p := range l.opts.Exempt {
		if p.Contains(ip) {
			return netip.Prefix{}, false
		}
	}
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits)
	return p, true
}

func (l *Listener) release(client netip.Prefix, counted bool) {
	l.open.Add(-1)
	if !counted {
		return
	}
	l.mu.Lock()
	if n := l.clients[client] - 1; n > 0 {
		l.clients[client] = n
	} else {
		delete(l.clients, client)
	}
	l.mu.Unlock()
}

// refuse answers c with one problem and closes it. The write has a short
// deadline: a client that does not read loses the answer, not our time.
func (l *Listener) refuse(c net.Conn, status int, title, detail, cap string) {
	l.refused.Add(1)
	l.opts.Log.Printf("refused "+l.opts.Name+" "+cap, "refused a connection from %s on %s: %s", c.RemoteAddr(), l.Addr(), detail)
	_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = c.Write(Response(status, title, detail))
	_ = c.Close()
}

// shed releases the spare descriptor, accepts and closes one pending
// connection, and takes the spare again.
func (l *Listener) shed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.spare == nil {
		return
	}
	l.spare.Close()
	l.spare = nil
	type deadliner interface{ SetDeadline(time.Time) error }
	if d, ok := l.Listener.(deadliner); ok {
		// Accept must not block: nothing may be pending.
		_ = d.SetDeadline(time.Now().Add(time.Millisecond))
		if c, err := l.Listener.Accept(); err == nil {
			l.refused.Add(1)
			_ = c.Close()
		}
		_ = d.SetDeadline(time.Time{})
	}
	l.spare, _ = os.Open(os.DevNull)
}

// resourceError reports whether err is a lack of descriptors or memory,
// which passes when connections close, rather than a broken listener.
func resourceError(err error) bool {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED:
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// conn is an admitted connection; Close releases its place once.
type conn struct {
	net.Conn
	l       *Listener
	peer    netip.Addr // see Peer
	client  netip.Prefix
	counted bool
	closed  atomic.Bool
}

// Peer is the TCP peer's address (see peerOf), read once at accept rather
// than from RemoteAddr on every request: what the servers log and limit by
// when no PROXY protocol reader sits above the guard.
func (c *conn) Peer() netip.Addr { return c.peer }

func (c *conn) Close() error {
	err := c.Conn.Close()
	if c.closed.CompareAndSwap(false, true) {
		c.l.release(c.client, c.counted)
	}
	return err
}

// Response renders a complete HTTP/1.1 response carrying an RFC 9457
// problem, for answers written before or instead of the HTTP server.
func Response(status int, title, detail string) []byte {
	body := `{"type":"about:blank","title":` + strconv.Quote(title) + `,"status":` + strconv.Itoa(status) + `,"detail":` + strconv.Quote(detail) + `}`
	h := "HTTP/1.1 " + strconv.Itoa(status) + " " + title + "\r\n" +
		"Content-Type: application/problem+json; charset=utf-8\r\n" +
		"Cache-Control: no-store\r\n" +
		"Connection: close\r\n"
	if status == 503 || status == 429 {
		h += "Retry-After: 1\r\n"
	}
	return []byte(h + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}
