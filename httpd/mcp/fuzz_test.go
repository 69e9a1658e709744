package mcp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/mcp"
)

// FuzzRequest posts arbitrary bodies, as no one, a key holder or with a
// bogus key, straight to the real handler (keeper, SDK transport, tools)
// in this process: a panic anywhere, in the SDK's own goroutines too,
// ends the fuzzing process, so surviving is the first property (a null
// arguments object once took the whole server down). Then: the answer is
// never a 5xx other than 503, never a JSON-RPC internal error, never the
// SDK's plain text; and a key holder is never served more calls than its
// key was counted for (a batch once carried fifty calls for one count).
func FuzzRequest(f *testing.F) {
	now := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC) // no minute turns while fuzzing
	e := newEnv(f, func(c *config) { c.rest.Now = func() time.Time { return now } })
	h, err := mcp.New(e.svc, mcp.Options{PublicURL: "http://127.0.0.1:1/mcp", AnonymousPerMinute: 1 << 40, Now: func() time.Time { return now }})
	if err != nil {
		f.Fatal(err)
	}
	search := toolCall(mcp.ToolSearch, `{"query":"golf"}`)
	for _, seed := range []string{
		search,
		toolCall(mcp.ToolSearch, `null`),
		toolCall(mcp.ToolFilter, `null`),
		toolCall(mcp.ToolSpecs, `{"id":"v_00000000","units":"imperial"}`),
		toolCall(mcp.ToolSpecs, `{"id":12}`),
		toolCall(mcp.ToolCompare, `{"ids":["v_1","v_2",3]}`),
		toolCall(mcp.ToolFilter, `{"fuel":"diesel","power_min":-5,"limit":0}`),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_specs_full","arguments":{"id":"v_1"},"_meta":{"x402/payment":{"x402Version":2}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_catalogue"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_catalogue","arguments":{"query":"golf"}},"Method":"x"}`,
		`{"jsonrpc":"2.0","id":1.5e300,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_catalogue","arguments":{"query":"golf"}}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_catalogue","arguments":{"query":"golf"}},"Method":"x"}]`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call"}]`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"0"}}}`,
		`{`, `null`, ``,
	} {
		for k := uint8(0); k < 4; k++ {
			f.Add(seed, k)
		}
	}
	keys := []string{"", e.apify, e.demo, "vsc_apify_" + strings.Repeat("0", 48)}
	f.Fuzz(func(t *testing.T, body string, key uint8) {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		apify := key%4 == 1
		if k := keys[int(key)%len(keys)]; k != "" {
			r.Header.Set("Authorization", "Bearer "+k)
		}
		var before int64
		if apify {
			before = e.used(t, now)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code >= 500 && w.Code != http.StatusServiceUnavailable {
			t.Fatalf("%q: %d %s", body, w.Code, w.Body)
		}
		if strings.Contains(w.Body.String(), `"code":-32603`) {
			t.Fatalf("%q: internal error: %s", body, w.Body)
		}
		if ct := w.Header().Get("Content-Type"); strings.HasPrefix(ct, "text/plain") {
			t.Fatalf("%q: a plain-text answer %d: %s", body, w.Code, w.Body)
		}
		if apify {
			if served, counted := servedCalls(w.Body.String()), e.used(t, now)-before; served > counted {
				t.Fatalf("%q: %d calls served, %d counted: %s", body, served, counted, w.Body)
			}
		}
		// The harness reaches the tools: a plain search by a key holder is
		// answered.
		if body == search && apify && (w.Code != 200 || !strings.Contains(w.Body.String(), `"structuredContent"`)) {
			t.Fatalf("the seed search was not answered: %d %s", w.Code, w.Body)
		}
	})
}

// servedCalls counts the successful tool results of an answer, plain JSON
// or event stream, one message or several.
func servedCalls(answer string) int64 {
	var n int64
	for _, line := range strings.Split(answer, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(line, "data: "))
		var msgs []rpcAnswer
		if strings.HasPrefix(line, "{") {
			line = "[" + line + "]"
		}
		if json.Unmarshal([]byte(line), &msgs) != nil {
			continue
		}
		for _, m := range msgs {
			if m.Result != nil && !m.Result.IsError && len(m.Result.StructuredContent) > 0 {
				n++
			}
		}
	}
	return n
}
