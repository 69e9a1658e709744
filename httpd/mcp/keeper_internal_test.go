package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

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

func TestToolCalls(t *testing.T) {
	f := func(body string, want int) {
		t.Helper()
		if got := toolCalls([]byte(body)); got != want {
			t.Errorf("%s: %d tool calls, want %d", body, got, want)
		}
	}
	f(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, 1)
	f(` {"method":"tools/list"}`, 0)
	f(`[{"method":"tools/call"},{"method":"ping"},{"method":"tools/call"}]`, 2)
	f(`not json`, 0)
	f(``, 0)
	f(`{"method":"tools/call","method":"ping"}`, 0)
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
