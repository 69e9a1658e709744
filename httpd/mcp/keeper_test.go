package mcp_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/httpdtest"
	"github.com/vspec/catalogue/httpd/mcp"
)

const listTools = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

// TestKeyRefused: an unknown or malformed key is 401 with the challenge
// naming the protected-resource metadata, on every request; a revoked or
// pending key 403.
func TestKeyRefused(t *testing.T) {
	e := newEnv(t)
	prm := strings.TrimSuffix(e.url, mcp.Path) + mcp.MetadataPath
	for _, h := range [][]string{
		{"Authorization", "Bearer vsc_apify_" + strings.Repeat("0", 48)},
		{"X-Api-Key", "nope"},
		{"Authorization", "Basic dXNlcjpwYXNz"},
		{"Authorization", "Bearer"},
	} {
		for _, body := range []string{listTools, toolCall(mcp.ToolSearch, `{"query":"golf"}`)} {
			res, b := e.post(body, h...)
			if res.StatusCode != 401 {
				t.Fatalf("%v: %d %s", h, res.StatusCode, b)
			}
			if c := res.Header.Get("WWW-Authenticate"); !strings.HasPrefix(c, "Bearer ") || !strings.Contains(c, `resource_metadata="`+prm+`"`) {
				t.Errorf("%v: WWW-Authenticate %q", h, c)
			}
			problemOf(t, res, b)
		}
	}
	if _, err := e.dial("nope"); err == nil {
		t.Error("the SDK client connected with an unknown key")
	}
	for _, key := range []string{e.revoked, e.pending} {
		res, b := e.post(toolCall(mcp.ToolSearch, `{"query":"golf"}`), "Authorization", "Bearer "+key)
		if res.StatusCode != 403 || res.Header.Get("WWW-Authenticate") != "" {
			t.Fatalf("%d %s", res.StatusCode, b)
		}
		if d := problemOf(t, res, b)["detail"].(string); !strings.Contains(d, "revoked") && !strings.Contains(d, "not yet active") {
			t.Errorf("detail %q", d)
		}
	}

	// The metadata document the challenge points at.
	res, err := http.Get(prm)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		BearerMethods        []string `json:"bearer_methods_supported"`
	}
	if err := json.NewDecoder(res.Body).Decode(&meta); err != nil || res.StatusCode != 200 {
		t.Fatalf("metadata: %d %v", res.StatusCode, err)
	}
	if meta.Resource != e.url || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != upgradeURL || meta.BearerMethods[0] != "header" {
		t.Errorf("metadata %+v", meta)
	}
}

// TestKeyLimits: a key over its minute limit gets 429 at the HTTP level,
// and only served calls count, as on REST.
func TestKeyLimits(t *testing.T) {
	// A fixed clock: a minute window that turned during the test (a slow
	// run under the race detector) would let the fourth call through.
	now := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	e := newEnv(t, func(c *config) {
		c.rest.Limits = map[access.Plan]access.Limits{access.PlanApify: {3, 100, 1000}}
		c.rest.Now = func() time.Time { return now }
	})
	cs := e.connect(e.apify)
	id := e.raw(e.outside())
	// Not counted: a 404, arguments the schema refuses, an unknown tool.
	failed(t, call(t, cs, mcp.ToolSpecs, map[string]any{"id": "99999999"}, nil), "Not Found")
	failed(t, call(t, cs, mcp.ToolSpecs, map[string]any{"id": id, "units": "cubits"}, nil), "units")
	if _, b := e.post(toolCall("no_such_tool", `{}`), "X-Api-Key", e.apify); !strings.Contains(string(b), "unknown tool") {
		t.Errorf("unknown tool: %s", b)
	}
	for i := 0; i < 3; i++ {
		ok(t, call(t, cs, mcp.ToolSpecs, map[string]any{"id": id}, nil))
	}
	res, b := e.post(toolCall(mcp.ToolSpecs, `{"id":"`+id+`"}`), "Authorization", "Bearer "+e.apify)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") == "" || !strings.HasPrefix(res.Header.Get("RateLimit"), `"minute";r=0`) || res.Header.Get("RateLimit-Policy") == "" {
		t.Fatalf("over the limit: %d %v %s", res.StatusCode, res.Header, b)
	}
	if d := problemOf(t, res, b)["detail"].(string); !strings.Contains(d, "3 calls per minute") {
		t.Errorf("detail %q", d)
	}
	// Requests that are not tool calls are not counted nor limited.
	if res, b := e.post(listTools, "Authorization", "Bearer "+e.apify); res.StatusCode != 200 {
		t.Errorf("tools/list over the limit: %d %s", res.StatusCode, b)
	}
}

// TestMeteringUnavailable: while usage cannot be persisted, keyed tool
// calls are refused with 503 and Retry-After (fail closed).
func TestMeteringUnavailable(t *testing.T) {
	e := newEnv(t)
	meter := httpdtest.FastMeter(t, e.keys)
	e = e.with(t, func(c *config) { c.rest.Meter = meter })
	body := toolCall(mcp.ToolSearch, `{"query":"golf"}`)
	if res, b := e.post(body, "X-Api-Key", e.apify); res.StatusCode != 200 {
		t.Fatalf("healthy metering: %d %s", res.StatusCode, b)
	}
	meter.BreakForTest(errors.New("disk full"))
	deadline := time.Now().Add(5 * time.Second) // FastMeter reports down after 1 s
	for {
		res, b := e.post(body, "X-Api-Key", e.apify)
		if res.StatusCode == 503 {
			if res.Header.Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
			if d := problemOf(t, res, b)["detail"].(string); !strings.Contains(d, "metering is unavailable") {
				t.Errorf("detail %q", d)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %d with metering broken", res.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Without a key nothing is metered: still answered.
	if res, b := e.post(body); res.StatusCode != 200 || !strings.Contains(string(b), "structuredContent") {
		t.Errorf("keyless during a metering outage: %d %s", res.StatusCode, b)
	}
}

// TestAnonymousLimit: tool calls without a key are limited per network,
// paid or not; other requests and keyed calls are not.
func TestAnonymousLimit(t *testing.T) {
	now := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC) // no minute turns during the test
	e := newEnv(t, func(c *config) { c.mcp.AnonymousPerMinute = 3; c.mcp.Now = func() time.Time { return now } })
	body := toolCall(mcp.ToolSpecs, `{"id":"`+e.token(e.cat.Demo[0])+`"}`)
	for i := 0; i < 3; i++ {
		if res, b := e.post(body); res.StatusCode != 200 {
			t.Fatalf("call %d: %d %s", i, res.StatusCode, b)
		}
	}
	for _, b := range []string{body, toolCall(mcp.ToolSpecs, `{"id":"x"}`) + " "} {
		res, got := e.post(b)
		retry, _ := strconv.Atoi(res.Header.Get("Retry-After"))
		if res.StatusCode != 429 || retry < 1 || retry > 61 {
			t.Fatalf("over the limit: %d Retry-After %q %s", res.StatusCode, res.Header.Get("Retry-After"), got)
		}
		if d := problemOf(t, res, got)["detail"].(string); !strings.Contains(d, "3 a minute per network") {
			t.Errorf("detail %q", d)
		}
	}
	if res, b := e.post(listTools); res.StatusCode != 200 {
		t.Errorf("tools/list: %d %s", res.StatusCode, b)
	}
	if res, b := e.post(body, "X-Api-Key", e.apify); res.StatusCode != 200 {
		t.Errorf("keyed call: %d %s", res.StatusCode, b)
	}
	// Another network is not limited (a trusted proxy tells the client).
	e2 := e.with(t, func(c *config) {
		c.mcp.AnonymousPerMinute = 1
		c.mcp.TrustedProxies = loopback
		c.mcp.Now = func() time.Time { return now }
	})
	for _, client := range []string{"192.0.2.1", "192.0.2.2"} {
		if res, b := e2.post(body, "X-Forwarded-For", client); res.StatusCode != 200 {
			t.Errorf("%s: %d %s", client, res.StatusCode, b)
		}
	}
	if res, _ := e2.post(body, "X-Forwarded-For", "192.0.2.1"); res.StatusCode != 429 {
		t.Errorf("192.0.2.1 again: %d", res.StatusCode)
	}
}

// TestOneCallPerRequest: a request carries one message, so a call is
// admitted once per HTTP request; a body over the limit is refused.
func TestOneCallPerRequest(t *testing.T) {
	now := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	e := newEnv(t, func(c *config) { c.rest.Now = func() time.Time { return now } })
	one := toolCall(mcp.ToolSearch, `{"query":"golf"}`)
	res, b := e.post("["+one+","+strings.Replace(one, `"id":1`, `"id":2`, 1)+"]", "MCP-Protocol-Version", "2025-03-26", "X-Api-Key", e.apify)
	if a := rpcOf(t, res, b); res.StatusCode != 400 || a.Error == nil {
		t.Fatalf("batch of two calls: %d %s", res.StatusCode, b)
	}
	res, b = e.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_catalogue","arguments":{"query":"` + strings.Repeat("a", 4<<20) + `"}}}`)
	if res.StatusCode != 413 {
		t.Errorf("a body over 4 MiB: %d", res.StatusCode)
	}
	if p := problemOf(t, res, b); !strings.HasSuffix(p["type"].(string), "/content-too-large") {
		t.Errorf("413 of type %v", p["type"])
	}
	// A repeated member is refused: two readers may keep different ones.
	before := e.used(t, now)
	res, b = e.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_catalogue","arguments":{"query":"golf"}},"method":"ping"}`, "X-Api-Key", e.apify)
	if a := rpcOf(t, res, b); res.StatusCode != 400 || a.Error == nil || a.Error.Code != -32600 {
		t.Errorf("a repeated method: %d %s", res.StatusCode, b)
	}
	if e.used(t, now) != before {
		t.Error("a refused message was counted")
	}
}
