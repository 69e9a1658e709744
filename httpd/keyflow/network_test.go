package keyflow

import (
	"net/netip"
	"testing"
)

func TestNetwork(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	f := func(peer string, xff []string, want string) {
		t.Helper()
		if got := Network(netip.MustParseAddr(peer), xff, trusted); got != want {
			t.Errorf("Network(%s, %q) = %s, want %s", peer, xff, got, want)
		}
		// fasthttp hands the lines over as byte slices.
		var b [][]byte
		for _, l := range xff {
			b = append(b, []byte(l))
		}
		if got := Network(netip.MustParseAddr(peer), b, trusted); got != want {
			t.Errorf("Network(%s, %q as bytes) = %s, want %s", peer, xff, got, want)
		}
	}
	f("203.0.113.9", nil, "203.0.113.9")
	f("203.0.113.9", []string{"198.51.100.1"}, "203.0.113.9") // not a trusted proxy: the header is ignored
	f("10.1.2.3", []string{"198.51.100.1"}, "198.51.100.1")
	f("10.1.2.3", []string{"198.51.100.1, 10.9.9.9"}, "198.51.100.1") // right-most untrusted hop
	f("10.1.2.3", []string{"spoofed, 198.51.100.1"}, "198.51.100.1")
	f("10.1.2.3", []string{"198.51.100.1, spoofed"}, "10.1.2.3") // an unparsable hop stops the walk
	f("10.1.2.3", []string{"198.51.100.1, spoofed, 10.4.4.4"}, "10.4.4.4")
	f("10.1.2.3", []string{""}, "10.1.2.3")
	// Several lines are one list, in order: the client writes the first
	// line, the proxy appends the last; reading only the first line would
	// let the client choose its network.
	f("10.1.2.3", []string{"192.0.2.66", "198.51.100.1"}, "198.51.100.1")
	f("10.1.2.3", []string{"192.0.2.66, 192.0.2.67", "198.51.100.1, 10.9.9.9"}, "198.51.100.1")
	f("10.1.2.3", []string{"192.0.2.66", "10.9.9.9", "10.8.8.8"}, "192.0.2.66") // every later line is a proxy
	f("10.1.2.3", []string{"192.0.2.66", "junk", "10.8.8.8"}, "10.8.8.8")
	f("10.1.2.3", []string{"192.0.2.66", "198.51.100.1,"}, "10.1.2.3") // an empty element is not an address
	// IPv6 clients are grouped by /64; mapped IPv4 is IPv4; zones are dropped.
	f("2001:db8:aa:bb:1:2:3:4", nil, "2001:db8:aa:bb::/64")
	f("::ffff:203.0.113.9", nil, "203.0.113.9")
	f("fd00::1", []string{"2001:db8:1:2::7", "2001:db8:1:2:ffff::9"}, "2001:db8:1:2::/64")
	f("fd00::1", []string{"::ffff:198.51.100.1"}, "198.51.100.1")
	f("fd00::1", []string{"2001:db8:1:2::7%eth0"}, "2001:db8:1:2::/64")
}
