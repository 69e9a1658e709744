package keyflow

import (
	"net/netip"
	"strings"
)

// Network identifies a client for per-network limits: its IPv4 address, or
// the /64 of its IPv6 address. The peer address comes from the socket;
// X-Forwarded-For is believed only when the peer is one of the trusted
// proxies.
//
// forwardedFor holds every X-Forwarded-For field line of the request, in
// the order received (fasthttp's PeekAll, net/http's Header.Values). The
// lines are read as one comma-separated list, as RFC 9110 section 5.3
// combines repeated fields: a client can write lines of its own before the
// ones its proxies append, so reading only the first line would let it
// choose its network. The walk goes from the right, past the trusted
// proxies; the first address that is not one is the client. A hop that is
// not an address stops the walk at the last good address.
func Network[S ~string | ~[]byte](peer netip.Addr, forwardedFor []S, trusted []netip.Prefix) string {
	client := peer.Unmap()
	isTrusted := func(a netip.Addr) bool {
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	if len(forwardedFor) > 0 && isTrusted(client) {
	walk:
		for line := len(forwardedFor) - 1; line >= 0; line-- {
			hops := string(forwardedFor[line])
			for {
				i := strings.LastIndexByte(hops, ',')
				a, err := netip.ParseAddr(strings.TrimSpace(hops[i+1:]))
				if err != nil {
					break walk
				}
				client = a.Unmap().WithZone("")
				if !isTrusted(client) {
					break walk
				}
				if i < 0 {
					break // on to the line before
				}
				hops = hops[:i]
			}
		}
	}
	if client.Is6() {
		p, _ := client.Prefix(64)
		return p.String()
	}
	return client.String()
}
