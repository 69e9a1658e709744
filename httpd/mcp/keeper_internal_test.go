package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metrics"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vspec/catalogue/httpd"
)

func TestCredential(t *testing.T) {
	f := func(name, value, wantKey string, wantSent, wantOK bool) {
		t.Helper()
		h := http.Header{}
		if name != "" {
			h.Set(name, value)
		}
		key, sent, ok := credential(h)
		if key != wantKey || sent != wantSent || ok != wantOK {
			t.Errorf("%s: %q: got %q %v %v", name, value, key, sent, ok)
		}
	}
	f("", "", "", false, true)
	f("Authorization", "Bearer k1", "k1", true, true)
	f("Authorization", "bearer   k2 ", "k2", true, true)
	f("X-Api-Key", " k3 ", "k3", true, true)
	f("Authorization", "Basic dXNlcjpwYXNz", "", true, false)
	f("Authorization", "Bearer", "", true, false)
	f("Authorization", "Bearer ", "", true, false)
	f("Authorization", "k4", "", true, false)
}

// TestReadEnvelope: the keeper reads a message as the SDK does, and
// refuses what two readers could read differently.
func TestReadEnvelope(t *testing.T) {
	f := func(body string, wantCall bool, wantCode int64, wantOut string) {
		t.Helper()
		out, env, refused := readEnvelope([]byte(body))
		switch {
		case wantCode != 0 && (refused == nil || refused.code != wantCode):
			t.Errorf("%s: refusal %+v, want code %d", body, refused, wantCode)
		case wantCode == 0 && refused != nil:
			t.Errorf("%s: refused %+v", body, refused)
		case wantCode == 0 && env.call != wantCall:
			t.Errorf("%s: call %v, want %v", body, env.call, wantCall)
		case wantOut != "" && string(out) != wantOut:
			t.Errorf("%s: passed on %s, want %s", body, out, wantOut)
		}
	}
	f(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}}`, true, 0,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}}`)
	f(` {"jsonrpc":"2.0","id":"a","method":"tools/list"}`, false, 0, `{"jsonrpc":"2.0","id":"a","method":"tools/list"}`)
	f(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, false, 0, "")
	// Null or absent arguments reach the SDK as {} (a null one crashed the
	// process); anything else but an object is refused.
	f(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":null}}`, true, 0,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{},"name":"x"}}`)
	f(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, true, 0,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{},"name":"x"}}`)
	for _, bad := range []string{`5`, `"a"`, `[]`, `true`} {
		f(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":`+bad+`}}`, true, codeInvalidParams, "")
	}
	f(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`, true, codeInvalidParams, "")
	f(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","name":"y","arguments":{}}}`, true, codeInvalidParams, "")
	// What encoding/json and the SDK read differently is refused or read
	// as the SDK reads it: a second "method", a "Method" the SDK ignores.
	f(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}},"method":"ping"}`, false, codeInvalidRequest, "")
	f(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}},"Method":"x"}`, true, 0,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`)
	f(`{"jsonrpc":"2.0","id":1,"Method":"tools/call","method":"ping"}`, false, 0, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	// Batches, junk and ids the SDK would not echo.
	f(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, false, codeInvalidRequest, "")
	f(`[]`, false, codeInvalidRequest, "")
	f(``, false, codeInvalidRequest, "")
	f(`{`, false, codeParseError, "")
	f(`nope`, false, codeParseError, "")
	f(`null`, false, codeInvalidRequest, "")
	f(`{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, false, codeParseError, "")
	f(`{"jsonrpc":"1.0","id":1,"method":"ping"}`, false, codeInvalidRequest, "")
	f(`{"jsonrpc":"2.0","id":1.5e300,"method":"ping"}`, false, codeInvalidRequest, "")
	f(`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, false, codeInvalidRequest, "")
	f(`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`, false, codeInvalidRequest, "")
	f(`{"jsonrpc":"2.0","id":{},"method":"ping"}`, false, codeInvalidRequest, "")
	f(`{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}`, false, 0, `{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}`)
}

// TestUnadmittedCall: a tool call that reaches a handler without passing
// the keeper is refused, never answered.
func TestUnadmittedCall(t *testing.T) {
	var tt tools // no service: the refusal must come first
	res, out, err := tt.run(context.Background(), &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{}}, ToolSearch, httpd.OpSearch, args{"query": json.RawMessage(`"golf"`)})
	if err != nil || out != nil || !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "not admitted") {
		t.Errorf("%v %v %+v", err, out, res)
	}
}

func TestTurn(t *testing.T) {
	var served, closed turn
	if !served.served() {
		t.Fatal("an open turn cannot be served")
	}
	served.close() // keeps the reservation: nothing to release
	closed.close()
	if closed.served() {
		t.Error("a closed turn was served: the client went away and the reservation was released")
	}
}

func TestMetadataURL(t *testing.T) {
	f := func(resource, want string) {
		t.Helper()
		u, _ := url.Parse(resource)
		if got := metadataURL(u); got != want {
			t.Errorf("%s: %s, want %s", resource, got, want)
		}
	}
	f("http://127.0.0.1:8090/mcp", "http://127.0.0.1:8090/.well-known/oauth-protected-resource/mcp")
	f("https://agents.example.com/v1/mcp/", "https://agents.example.com/.well-known/oauth-protected-resource/v1/mcp")
	f("https://agents.example.com", "https://agents.example.com/.well-known/oauth-protected-resource")
}

// TestRecovering: a panic while the SDK handles a method is answered as a
// JSON-RPC internal error and counted; it never reaches the SDK's
// goroutine, where nothing recovers it.
func TestRecovering(t *testing.T) {
	panics := metrics.NewSet().NewCounter("panics_total")
	h := recovering(panics)(func(context.Context, string, sdk.Request) (sdk.Result, error) {
		var m map[string]any
		//lint:ignore SA5000 the nil-map write is the panic being reproduced
		m["x"] = 1 // the nil-map write of issue 35
		return nil, nil
	})
	res, err := h(context.Background(), "tools/call", nil)
	var rpcErr *jsonrpc.Error
	if res != nil || !errors.As(err, &rpcErr) || rpcErr.Code != codeInternalError || panics.Get() != 1 {
		t.Errorf("%v %v, %d panics counted", res, err, panics.Get())
	}
}
