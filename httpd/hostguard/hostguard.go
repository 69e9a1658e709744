// Package hostguard decides whether a request's Host and Origin name this
// server: the DNS-rebinding defence of the listeners a browser on the
// operator's machine can reach (the MCP endpoint, the admin API). A web
// page on another site can make a browser send requests to a server on
// the user's machine (the attacker's name resolves to 127.0.0.1), and only
// these two headers tell such a request apart: its Host is the attacker's
// name, and a browser adds the page's Origin.
//
// A Guard only decides; each transport writes the refusal in its own form
// (a problem, with its own type). It imports the standard library only.
package hostguard

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Guard holds the Host and Origin values a listener answers to. Build it
// with New; it is immutable and safe for concurrent use.
type Guard struct {
	hostNames map[string]bool // allowed on any port
	hostPorts map[string]bool // "name:port", lower case
	originsOK map[string]bool // exact "scheme://host[:port]", lower case
	originHNs map[string]bool // host names allowed with any scheme and port
}

// New returns the guard that allows the Host values hosts ("name" on any
// port, "name:port" on that one; an IPv6 address in brackets) and the
// Origin values origins ("scheme://host[:port]" exactly, or a host name
// with any scheme and port). Names compare without regard to case.
func New(hosts, origins []string) *Guard {
	g := &Guard{hostNames: map[string]bool{}, hostPorts: map[string]bool{}, originsOK: map[string]bool{}, originHNs: map[string]bool{}}
	for _, h := range hosts {
		if _, _, err := net.SplitHostPort(h); err == nil {
			g.hostPorts[strings.ToLower(h)] = true
		} else {
			g.hostNames[HostName(h)] = true
		}
	}
	for _, o := range origins {
		if strings.Contains(o, "://") {
			g.originsOK[strings.ToLower(strings.TrimSuffix(o, "/"))] = true
		} else {
			g.originHNs[HostName(o)] = true
		}
	}
	return g
}

// LoopbackHosts are the names of this machine's loopback interface that a
// local client sends as Host: the default of a loopback listener.
var LoopbackHosts = []string{"localhost", "127.0.0.1", "[::1]"}

// Names returns the host names of hosts ("name" or "name:port"), the
// default origins of a guard whose hosts are hosts.
func Names(hosts []string) []string {
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = HostName(h)
	}
	return out
}

// HostAllowed reports whether host, a Host header's value, is allowed.
func (g *Guard) HostAllowed(host string) bool {
	return g.hostNames[HostName(host)] || g.hostPorts[strings.ToLower(host)]
}

// OriginAllowed reports whether origin, an Origin header's value, is
// allowed. "null" (sandboxed and file: pages) never is.
func (g *Guard) OriginAllowed(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return g.originsOK[strings.ToLower(u.Scheme+"://"+u.Host)] || g.originHNs[HostName(u.Host)]
}

// LoopbackOnly reports whether every allowed host is a loopback name.
func (g *Guard) LoopbackOnly() bool {
	for h := range g.hostNames {
		if !IsLoopbackName(h) {
			return false
		}
	}
	for hp := range g.hostPorts {
		if !IsLoopbackName(HostName(hp)) {
			return false
		}
	}
	return true
}

// Refusal is why a request was refused: the header and its value.
type Refusal struct {
	Header string // "Host" or "Origin"
	Value  string
}

// Error is the refusal as a problem's detail, the value quoted and cut
// short.
func (r *Refusal) Error() string {
	if r.Header == "Host" {
		return "The Host header " + Quote(r.Value) + " is not one this server answers to."
	}
	return "Requests from the origin " + Quote(r.Value) + " are not accepted."
}

// Check returns nil when r's Host is allowed and its Origin is absent (not
// a browser's request) or allowed, else the refusal.
func (g *Guard) Check(r *http.Request) *Refusal {
	if !g.HostAllowed(r.Host) {
		return &Refusal{Header: "Host", Value: r.Host}
	}
	if o := r.Header.Get("Origin"); o != "" && !g.OriginAllowed(o) {
		return &Refusal{Header: "Origin", Value: o}
	}
	return nil
}

// HostName returns the host of "host" or "host:port" in lower case,
// without brackets.
func HostName(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return strings.ToLower(h)
	}
	return strings.ToLower(strings.Trim(hostport, "[]"))
}

// IsLoopbackName reports whether h, a host name, is localhost or a
// loopback address.
func IsLoopbackName(h string) bool {
	if h == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
}

// Quote quotes an untrusted header value for a message, cut short.
func Quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return strconv.Quote(s)
}
