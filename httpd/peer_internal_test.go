package httpd

import (
	"bufio"
	"net"
	"net/netip"
	"testing"
	"time"

	proxyproto "github.com/pires/go-proxyproto"
	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/connguard"
)

// TestPeer: on a real listener, peer is the TCP peer the connection guard
// read at accept; with a PROXY protocol reader above the guard, it is the
// client the proxy names, never the proxy.
func TestPeer(t *testing.T) {
	t.Run("guard", func(t *testing.T) { checkPeer(t, false, "127.0.0.1") })
	t.Run("proxy protocol", func(t *testing.T) { checkPeer(t, true, "192.0.2.44") })
}

// checkPeer serves one request on a guarded loopback listener, under a
// PROXY reader naming 192.0.2.44 when proxy is set, and checks its peer.
func checkPeer(t *testing.T, proxy bool, want string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var served net.Listener = connguard.Wrap(ln, connguard.Options{})
	if proxy {
		served = &proxyproto.Listener{Listener: served, ConnPolicy: func(proxyproto.ConnPolicyOptions) (proxyproto.Policy, error) {
			return proxyproto.REQUIRE, nil
		}}
	}
	got := make(chan netip.Addr, 1)
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { got <- peer(ctx) }}
	go srv.Serve(served) //nolint:errcheck // ends with Shutdown
	defer srv.Shutdown() //nolint:errcheck

	c, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if proxy {
		h := proxyproto.HeaderProxyFromAddrs(2, &net.TCPAddr{IP: net.ParseIP("192.0.2.44"), Port: 4000}, c.RemoteAddr())
		if _, err := h.WriteTo(c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-got:
		if a.String() != want {
			t.Fatalf("peer %s, want %s", a, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler never ran")
	}
}
