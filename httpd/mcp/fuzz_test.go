package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vspec/catalogue/httpd/mcp"
)

// FuzzRequest posts arbitrary bodies, as no one, a key holder or with a
// bogus key, straight to the handler: whatever arrives, the answer is never
// a 5xx other than 503 or a panic, and never a JSON-RPC internal error.
func FuzzRequest(f *testing.F) {
	e := newEnv(f)
	h, err := mcp.New(e.svc, mcp.Options{PublicURL: "http://127.0.0.1:1/mcp", AnonymousPerMinute: 1 << 40})
	if err != nil {
		f.Fatal(err)
	}
	search := toolCall(mcp.ToolSearch, `{"query":"golf"}`)
	for _, seed := range []string{
		search,
		toolCall(mcp.ToolSpecs, `{"id":"v_00000000","units":"imperial"}`),
		toolCall(mcp.ToolSpecs, `{"id":12}`),
		toolCall(mcp.ToolCompare, `{"ids":["v_1","v_2",3]}`),
		toolCall(mcp.ToolFilter, `{"fuel":"diesel","power_min":-5,"limit":0}`),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_specs_full","arguments":{"id":"v_1"},"_meta":{"x402/payment":{"x402Version":2}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call"}]`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
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
		if k := keys[int(key)%len(keys)]; k != "" {
			r.Header.Set("Authorization", "Bearer "+k)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code >= 500 && w.Code != http.StatusServiceUnavailable {
			t.Fatalf("%q: %d %s", body, w.Code, w.Body)
		}
		if strings.Contains(w.Body.String(), `"code":-32603`) {
			t.Fatalf("%q: internal error: %s", body, w.Body)
		}
		// The harness reaches the tools: a plain search by a key holder is
		// answered.
		if body == search && key%4 == 1 && (w.Code != 200 || !strings.Contains(w.Body.String(), `"structuredContent"`)) {
			t.Fatalf("the seed search was not answered: %d %s", w.Code, w.Body)
		}
	})
}
