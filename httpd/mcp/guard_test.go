package mcp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/vspec/catalogue/httpd/mcp"
)

// TestHostAndOrigin: DNS-rebinding protection. A request whose Host is not
// ours, or whose Origin is present and not ours, is 403; allowed browser
// origins get CORS.
func TestHostAndOrigin(t *testing.T) {
	e := newEnv(t)
	port := e.url[strings.LastIndex(e.url, ":")+1 : len(e.url)-len(mcp.Path)]
	call := toolCall(mcp.ToolSpecs, `{"id":"`+e.token(e.cat.Demo[0])+`"}`)
	status := func(headers ...string) int {
		t.Helper()
		res, b := e.post(call, headers...)
		if res.StatusCode == 403 {
			problemOf(t, res, b)
		}
		return res.StatusCode
	}
	for _, h := range [][]string{
		{"Host", "evil.example"},
		{"Host", "evil.example:" + port},
		{"Host", "127.0.0.1.evil.example"},
		{"Origin", "http://evil.example"},
		{"Origin", "http://localhost.evil.example:" + port},
		{"Origin", "null"},
		{"Host", "localhost:" + port, "Origin", "https://evil.example"},
	} {
		if got := status(h...); got != 403 {
			t.Errorf("%v: %d, want 403", h, got)
		}
	}
	for _, h := range [][]string{
		nil,
		{"Host", "localhost:" + port},
		{"Host", "[::1]:" + port},
		{"Origin", "http://localhost:" + port},
		{"Origin", "http://127.0.0.1:5173"},
	} {
		if got := status(h...); got != 200 {
			t.Errorf("%v: %d, want 200", h, got)
		}
	}
	res, _ := e.post(call, "Origin", "http://localhost:5173")
	if res.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" || !strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
		t.Errorf("CORS headers %v", res.Header)
	}
	pre, _ := http.NewRequest(http.MethodOptions, e.url, nil)
	pre.Header.Set("Origin", "http://localhost:5173")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	if res, err := http.DefaultClient.Do(pre); err != nil || res.StatusCode != 204 || !strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("preflight: %v %v", err, res)
	}
	// The metadata is public, also across origins, but only on our hosts.
	prm := strings.TrimSuffix(e.url, mcp.Path) + mcp.MetadataPath
	for host, want := range map[string]int{"evil.example": 403, "localhost:" + port: 200} {
		req, _ := http.NewRequest(http.MethodGet, prm, nil)
		req.Host = host
		req.Header.Set("Origin", "https://anywhere.example")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want || want == 200 && res.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("metadata with Host %s: %d %v", host, res.StatusCode, res.Header)
		}
	}
	// Anything else is a problem, not the transport.
	if res, b := e.post(call); res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, b)
	}
	res, err := http.Get(strings.TrimSuffix(e.url, mcp.Path) + "/v1/search")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
		t.Errorf("unknown path: %d %v", res.StatusCode, res.Header)
	}
}

// TestPublicHost: a server behind a proxy answers to the public name it is
// configured with, and still refuses others.
func TestPublicHost(t *testing.T) {
	e := newEnv(t, func(c *config) {
		c.mcp.PublicURL = "https://agents.vspec.example/mcp"
		c.mcp.AllowedOrigins = []string{"https://app.vspec.example"}
	})
	call := toolCall(mcp.ToolSearch, `{"query":"golf"}`)
	for _, c := range []struct {
		headers []string
		want    int
	}{
		{[]string{"Host", "agents.vspec.example"}, 200},
		{[]string{"Host", "agents.vspec.example", "Origin", "https://app.vspec.example"}, 200},
		{[]string{"Host", "agents.vspec.example", "Origin", "http://app.vspec.example"}, 403},
		{[]string{"Host", "agents.vspec.example", "Origin", "https://agents.vspec.example"}, 403},
		{[]string{"Host", "other.example"}, 403},
	} {
		if res, b := e.post(call, c.headers...); res.StatusCode != c.want {
			t.Errorf("%v: %d, want %d: %s", c.headers, res.StatusCode, c.want, b)
		}
	}
	res, b := e.post(call, "Authorization", "Bearer nope", "Host", "agents.vspec.example")
	if ch := res.Header.Get("WWW-Authenticate"); res.StatusCode != 401 || !strings.Contains(ch, `resource_metadata="https://agents.vspec.example/.well-known/oauth-protected-resource/mcp"`) {
		t.Errorf("%d %q %s", res.StatusCode, ch, b)
	}
}
