package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/netip"
	"time"

	proxyproto "github.com/pires/go-proxyproto"

	"github.com/vspec/catalogue/httpd/connguard"
)

// Flags of connection admission (httpd/connguard) and of the PROXY protocol.
var (
	maxConns          = flag.Int("http.maxConns", 0, "connections the API may hold open at once; more are answered 503 and closed. 0 derives it from the open-file limit (raised to the hard limit at start), keeping a tenth of it for the process's own files. See also -http.maxConnsPerClient")
	maxConnsPerClient = flag.Int("http.maxConnsPerClient", 256, "connections one client network (an IPv4 address or an IPv6 /64) may hold open at once on the API and MCP listeners; more are answered 429 and closed. Peers in -http.trustedProxies count only in -http.maxConns; 0 disables the cap")
	maxHeaderBytes    = flag.Int("http.maxHeaderBytes", 8<<10, "largest request line plus headers, in bytes; larger requests get 431")
	proxyProtocol     = flag.Bool("http.proxyProtocol", false, "read the client address from a PROXY protocol (v1 or v2) header on the API and MCP listeners: connections from -http.trustedProxies must send one, connections from anyone else must not (both are closed otherwise)")
	mcpMaxConns       = flag.Int("mcp.maxConns", 1024, "connections the MCP listener may hold open at once; more are answered 503 and closed")
)

// Connection caps of the admin API, which only operators use.
const (
	adminMaxConns          = 32
	adminMaxConnsPerClient = 8
)

// listenerPlan is what the admission of one listener needs.
type listenerPlan struct {
	name                string
	addr                string
	maxConns, perClient int
	proxies             []netip.Prefix // exempt from the per-client cap; PROXY headers trusted from them
	proxyProtocol       bool
}

// listen opens a guarded listener: the TCP socket, then connguard (which
// counts TCP peers and never lets accept fail for lack of descriptors),
// then, when asked, the PROXY protocol reader on top.
func listen(p listenerPlan) (net.Listener, error) {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s for the %s: %w", p.addr, p.name, err)
	}
	var out net.Listener = connguard.Wrap(ln, connguard.Options{Name: p.name, MaxConns: p.maxConns, MaxConnsPerClient: p.perClient, Exempt: p.proxies})
	if p.proxyProtocol {
		out = &proxyproto.Listener{Listener: out, ConnPolicy: proxyPolicy(p.proxies), ReadHeaderTimeout: 5 * time.Second}
	}
	return out, nil
}

// proxyPolicy requires a PROXY header from the trusted proxies and refuses
// one from anybody else, who could otherwise claim any address.
func proxyPolicy(trusted []netip.Prefix) proxyproto.ConnPolicyFunc {
	return func(o proxyproto.ConnPolicyOptions) (proxyproto.Policy, error) {
		if ta, ok := o.Upstream.(*net.TCPAddr); ok {
			if ip, ok := netip.AddrFromSlice(ta.IP); ok {
				for _, p := range trusted {
					if p.Contains(ip.Unmap()) {
						return proxyproto.REQUIRE, nil
					}
				}
			}
		}
		return proxyproto.REJECT, nil
	}
}

// connectionCaps raises the open-file limit and returns the API's total
// connection cap: -http.maxConns, or what the limit leaves after the MCP
// and admin listeners' caps and a reserve for files.
func connectionCaps() (int, error) {
	limit, err := connguard.RaiseFileLimit()
	if err != nil {
		return 0, fmt.Errorf("cannot read the open-file limit: %w", err)
	}
	if *maxConns > 0 {
		if uint64(*maxConns) >= limit {
			log.Printf("warning: -http.maxConns=%d is not below the open-file limit %d: descriptor exhaustion will be waited out, not prevented", *maxConns, limit)
		}
		return *maxConns, nil
	}
	api := connguard.DefaultMaxConns(limit) - adminMaxConns
	if *mcpListen != "" {
		api -= *mcpMaxConns
	}
	api = max(api, 16)
	log.Printf("open-file limit %d: the API takes at most %d connections, %d per client network", limit, api, *maxConnsPerClient)
	return api, nil
}
