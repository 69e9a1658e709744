package mcp_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/mcp"
)

// Regressions of issue 35 (tried as an attacker would, on loopback). MCP
// below is
//
//	curl -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' http://127.0.0.1:<mcp>/mcp

// rpcAnswer is the JSON-RPC message of an answer, sent as JSON or as the
// one event of an event stream.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func rpcOf(t testing.TB, res *http.Response, body []byte) rpcAnswer {
	t.Helper()
	b := body
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		_, data, ok := strings.Cut(string(body), "data: ")
		if !ok {
			t.Fatalf("an event stream without data: %s", body)
		}
		data, _, _ = strings.Cut(data, "\n")
		b = []byte(data)
	} else if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("content type %q of a JSON-RPC answer (%d): %s", ct, res.StatusCode, body)
	}
	var a rpcAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("not JSON-RPC: %v: %s", err, b)
	}
	return a
}

// used is the calls of the apify key counted in the minute of now (the
// REST clock of a test that reads it is fixed, so that no minute turns
// between two readings).
func (e *env) used(t testing.TB, now time.Time) int64 {
	t.Helper()
	k, err := e.keys.Find(e.apify)
	if err != nil {
		t.Fatal(err)
	}
	n, err := e.keys.Used(k, access.Minute, now)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNullArguments: a tool call whose arguments are null killed the
// process, no key needed:
//
//	MCP -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_catalogue","arguments":null}}'
//
// curl got no answer and the REST API died with it: "panic: assignment to
// entry in nil map" in jsonschema-go's ApplyDefaults, called from the
// SDK's tool.go in a goroutine the SDK starts without a recover. Now null
// and absent arguments are {} (the tool answers what is missing), and
// anything else but an object is a JSON-RPC invalid-params error.
func TestNullArguments(t *testing.T) {
	e := newEnv(t)
	for _, tool := range []string{mcp.ToolSearch, mcp.ToolFilter, mcp.ToolSpecs, mcp.ToolCompare} {
		for _, key := range []string{"", e.apify} {
			for _, body := range []string{
				toolCall(tool, "null"),
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `"}}`,
			} {
				headers := []string{}
				if key != "" {
					headers = []string{"X-Api-Key", key}
				}
				res, b := e.post(body, headers...)
				if res.StatusCode != 200 {
					t.Fatalf("%s: %d %s", body, res.StatusCode, b)
				}
				if a := rpcOf(t, res, b); a.Result == nil || string(a.ID) != "1" {
					t.Fatalf("%s: no tool result: %s", body, b)
				}
			}
			res, b := e.post(toolCall(tool, `[1]`))
			if a := rpcOf(t, res, b); res.StatusCode != 400 || a.Error == nil || a.Error.Code != -32602 || !strings.Contains(a.Error.Message, "must be an object") {
				t.Errorf("arguments [1]: %d %s", res.StatusCode, b)
			}
		}
	}
	// The process and its REST twin are alive.
	if status, _ := e.restGet("/v1/health", ""); status != 200 {
		t.Errorf("REST health after the calls: %d", status)
	}
}

// TestBatchBypass: a JSON-RPC batch of tools/call without an
// Mcp-Protocol-Version header, with ,"Method":"x" added to every element
// after the first, was counted as one call (the keeper decoded with
// encoding/json, where a case-insensitive "Method" overrides "method") and
// run as all of them by the SDK (which matches case-sensitively): 50 calls
// served on an apify key for 2 units of usage; keyless with
// -mcp.perMinute 2, 200 calls before a 429; one request carried 465
// compares.
//
//	MCP -d '[{…tools/call…},{…tools/call…,"Method":"x"},…]'
//
// Batches are refused (MCP removed them in 2025-06-18, and a call is
// admitted per request), and a message is read with the SDK's decoder, so
// a "Method" key the SDK ignores is ignored when counting too.
func TestBatchBypass(t *testing.T) {
	now := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC) // no minute turns during the test
	e := newEnv(t, func(c *config) {
		c.mcp.AnonymousPerMinute = 2
		c.mcp.Now = func() time.Time { return now }
		c.rest.Now = c.mcp.Now
	})
	one := toolCall(mcp.ToolSpecs, `{"id":"`+e.token(e.cat.Demo[0])+`"}`)
	var batch []string
	for i := 1; i <= 50; i++ {
		m := strings.Replace(one, `"id":1`, `"id":`+strconv.Itoa(i), 1)
		if i > 1 {
			m = strings.TrimSuffix(m, "}") + `,"Method":"x"}`
		}
		batch = append(batch, m)
	}
	body := "[" + strings.Join(batch, ",") + "]"
	for _, key := range []string{"", e.apify} {
		before := e.used(t, now)
		headers := []string{}
		if key != "" {
			headers = []string{"X-Api-Key", key}
		}
		res, b := e.post(body, headers...)
		if a := rpcOf(t, res, b); res.StatusCode != 400 || a.Error == nil || a.Error.Code != -32600 || !strings.Contains(a.Error.Message, "batches are not accepted") {
			t.Fatalf("key %q: the batch: %d %s", key, res.StatusCode, b)
		}
		if strings.Contains(string(b), "structuredContent") {
			t.Fatalf("key %q: the batch was served: %s", key, b)
		}
		if after := e.used(t, now); after != before {
			t.Errorf("key %q: the refused batch counted %d", key, after-before)
		}
	}
	// A single call carrying "Method" is the call the SDK runs: counted once
	// and served once.
	before := e.used(t, now)
	keyed := strings.Replace(batch[1], e.token(e.cat.Demo[0]), e.raw(e.cat.Demo[0]), 1) // the apify plan sees integer ids
	res, b := e.post(keyed, "X-Api-Key", e.apify)
	if a := rpcOf(t, res, b); res.StatusCode != 200 || a.Result == nil || a.Result.IsError {
		t.Fatalf("one call with Method: %d %s", res.StatusCode, b)
	}
	if after := e.used(t, now); after != before+1 {
		t.Errorf("one served call counted %d", after-before)
	}
	// Keyless, the network's two calls a minute hold.
	for i := 0; i < 2; i++ {
		if res, b := e.post(batch[1]); res.StatusCode != 200 {
			t.Fatalf("keyless call %d: %d %s", i, res.StatusCode, b)
		}
	}
	if res, b := e.post(batch[1]); res.StatusCode != 429 {
		t.Errorf("the third keyless call: %d %s", res.StatusCode, b)
	}
}

// TestKeylessRequests: a 64 KiB batch of 1,211 tools/list answered 28.9 MB
// in 0.22 s, and 32 at once took the RSS from 162 MB to 1.05 GB: only
// tools/call was counted. A request carries one message now, and keyless
// requests of any kind are counted per network.
func TestKeylessRequests(t *testing.T) {
	now := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	e := newEnv(t, func(c *config) {
		c.mcp.AnonymousRequestsPerMinute = 3
		c.mcp.Now = func() time.Time { return now }
	})
	batch := "[" + strings.TrimSuffix(strings.Repeat(listTools+",", 1211), ",") + "]"
	if res, b := e.post(batch); res.StatusCode != 400 || len(b) > 1024 {
		t.Fatalf("a batch of tools/list: %d, %d bytes", res.StatusCode, len(b))
	}
	for i := 0; i < 2; i++ {
		if res, b := e.post(listTools); res.StatusCode != 200 {
			t.Fatalf("tools/list %d: %d %s", i, res.StatusCode, b)
		}
	}
	res, b := e.post(listTools)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") == "" {
		t.Fatalf("over the limit: %d %s", res.StatusCode, b)
	}
	if p := problemOf(t, res, b); !strings.Contains(p["detail"].(string), "Requests to the MCP endpoint without an API key are limited to 3 a minute") ||
		!strings.HasSuffix(p["type"].(string), "/network-rate-limited") {
		t.Errorf("problem %v", p)
	}
	if res, b := e.post(listTools, "X-Api-Key", e.apify); res.StatusCode != 200 {
		t.Errorf("keyed: %d %s", res.StatusCode, b)
	}
}

// TestErrorsAreJSONRPC: parse errors, unknown methods, a missing id and
// junk batches were HTTP 400 text/plain from the SDK; Host LOCALHOST:1
// passed our guard and met the SDK's plain-text 403; an id of 1.5e300 came
// back as -9223372036854775808.
func TestErrorsAreJSONRPC(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		body string
		code int64
	}{
		{`{`, -32700},
		{`not json`, -32700},
		{`[1,2]`, -32600},
		{`[]`, -32600},
		{`{"jsonrpc":"2.0","id":1,"method":"no/such"}`, -32601},
		{`{"jsonrpc":"2.0","method":"tools/list"}`, -32600},
		{`{"jsonrpc":"2.0","id":1.5e300,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":"y"}}`, -32602},
	} {
		res, b := e.post(c.body)
		a := rpcOf(t, res, b)
		if res.StatusCode != 400 && res.StatusCode != 404 || a.Error == nil || a.Error.Code != c.code {
			t.Errorf("%s: %d %s, want code %d", c.body, res.StatusCode, b, c.code)
		}
	}
	res, b := e.post(`{"jsonrpc":"2.0","id":7,"method":"no/such"}`)
	if a := rpcOf(t, res, b); string(a.ID) != "7" {
		t.Errorf("the error does not carry the request's id: %s", b)
	}
	host := strings.ToUpper(strings.TrimPrefix(strings.TrimSuffix(e.url, mcp.Path), "http://"))
	host = strings.Replace(host, "127.0.0.1", "LOCALHOST", 1)
	if res, b := e.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Host", host); res.StatusCode != 200 {
		t.Errorf("Host %s: %d %s", host, res.StatusCode, b)
	}
}
