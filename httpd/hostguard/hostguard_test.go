package hostguard

import (
	"net/http"
	"strings"
	"testing"
)

// ftest returns the f-test of allowed, the Guard method name.
func ftest(t *testing.T, name string, allowed func(string) bool) func(v string, want bool) {
	return func(v string, want bool) {
		t.Helper()
		if got := allowed(v); got != want {
			t.Errorf("%s(%q) = %v, want %v", name, v, got, want)
		}
	}
}

func TestHosts(t *testing.T) {
	g := New(append([]string{"agents.example.com", "proxy.internal:8443"}, LoopbackHosts...), nil)
	f := ftest(t, "HostAllowed", g.HostAllowed)
	f("localhost", true)
	f("localhost:8081", true)
	f("LOCALHOST:1", true)
	f("127.0.0.1:8081", true)
	f("[::1]:8081", true)
	f("[::1]", true)
	f("agents.example.com", true)
	f("Agents.Example.Com:443", true)
	f("proxy.internal:8443", true)
	f("proxy.internal:8444", false) // name:port allows that port only
	f("proxy.internal", false)
	f("evil.example", false)
	f("evil.example:8081", false)
	f("127.0.0.1.evil.example", false)
	f("localhost.evil.example:8081", false)
	f("localhost.", false)
	f("", false)
	f("[::2]:8081", false)
}

func TestOrigins(t *testing.T) {
	g := New(nil, []string{"https://app.example.com", "localhost", "127.0.0.1", "[::1]"})
	f := ftest(t, "OriginAllowed", g.OriginAllowed)
	f("https://app.example.com", true)
	f("https://APP.example.com", true)
	f("http://app.example.com", false) // an exact origin: its scheme too
	f("https://app.example.com:8443", false)
	f("http://localhost:5173", true) // a name: any scheme and port
	f("http://127.0.0.1:3000", true)
	f("http://[::1]:3000", true)
	f("http://localhost.evil.example", false)
	f("https://evil.example", false)
	f("null", false)
	f("", false)
	f("::", false)
}

func TestCheck(t *testing.T) {
	g := New(LoopbackHosts, Names(LoopbackHosts))
	f := func(host, origin, want string) {
		t.Helper()
		r, _ := http.NewRequest(http.MethodGet, "http://x/", nil)
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		got := ""
		if ref := g.Check(r); ref != nil {
			got = ref.Error()
		}
		if got != want {
			t.Errorf("Check(Host %q, Origin %q) = %q, want %q", host, origin, got, want)
		}
	}
	f("127.0.0.1:8081", "", "")
	f("localhost:8081", "http://localhost:3000", "")
	f("evil.example:8081", "", `The Host header "evil.example:8081" is not one this server answers to.`)
	f("localhost:8081", "https://evil.example", `Requests from the origin "https://evil.example" are not accepted.`)
	f("localhost:8081", "null", `Requests from the origin "null" are not accepted.`)
	long := strings.Repeat("h", 150)
	if got := Quote(long); len(got) > 120 {
		t.Errorf("Quote did not cut %d bytes short: %d", len(long), len(got))
	}
}

func TestLoopbackOnly(t *testing.T) {
	if !New(LoopbackHosts, nil).LoopbackOnly() || !New([]string{"127.0.0.2:80"}, nil).LoopbackOnly() {
		t.Error("loopback names are loopback")
	}
	if New(append([]string{"agents.example.com"}, LoopbackHosts...), nil).LoopbackOnly() || New([]string{"10.0.0.5:8081"}, nil).LoopbackOnly() {
		t.Error("a public name or address is not loopback")
	}
}
