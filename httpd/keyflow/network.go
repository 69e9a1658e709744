package keyflow

import (
	"net/netip"
	"strings"
)

// Network identifies a client for per-network limits: its IPv4 address, or
// the /64 of its IPv6 address. The peer address comes from the socket;
// X-Forwarded-For is believed only when the peer is one of the trusted
// proxies, and then the right-most address that is not a trusted proxy is
// the client.
func Network(peer netip.Addr, forwardedFor string, trusted []netip.Prefix) string {
	client := peer.Unmap()
	isTrusted := func(a netip.Addr) bool {
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	if forwardedFor != "" && isTrusted(client) {
		hops := strings.Split(forwardedFor, ",")
		for i := len(hops) - 1; i >= 0; i-- {
			a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break
			}
			client = a.Unmap()
			if !isTrusted(client) {
				break
			}
		}
	}
	if client.Is6() {
		p, _ := client.Prefix(64)
		return p.String()
	}
	return client.String()
}
