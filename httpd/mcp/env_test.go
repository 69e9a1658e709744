package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/httpdtest"
	"github.com/vspec/catalogue/httpd/mcp"
	"github.com/vspec/catalogue/httpd/publicid"
	"github.com/vspec/catalogue/httpd/x402"
)

// env is the agent tool surface on a real loopback listener, over a small
// generated catalogue, beside its REST twin on another, with keys of each
// kind and payments taken by the built-in facilitator.
type env struct {
	t        testing.TB
	url      string // the MCP endpoint
	rest     string // host:port of the REST API
	svc      *httpd.Service
	cat      *engine.Catalogue
	codec    *publicid.Codec
	keys     *access.Store
	payments *x402.Store

	apify, demo, pending, revoked string
}

// config adjusts an env before it starts.
type config struct {
	rest        httpd.Options
	mcp         mcp.Options
	facilitator x402.Facilitator // nil: the built-in one
	noPayments  bool
}

const upgradeURL = "https://upgrade.example/keys"

func newEnv(t testing.TB, opts ...func(*config)) *env {
	t.Helper()
	e := &env{t: t, cat: httpdtest.Catalogue(t)}
	var err error
	if e.codec, err = publicid.New([]byte("test secret of at least thirty-two bytes")); err != nil {
		t.Fatal(err)
	}
	k := httpdtest.NewKeys(t)
	e.keys, e.apify, e.demo, e.pending, e.revoked = k.Store, k.Apify, k.Demo, k.Pending, k.Revoked
	return e.with(t, opts...)
}

// with starts another REST service and MCP server over e's catalogue and
// keys, configured by opts.
func (e *env) with(t testing.TB, opts ...func(*config)) *env {
	t.Helper()
	n := *e
	e = &n
	e.t = t
	high := access.Limits{1 << 30, 1 << 30, 1 << 30}
	c := config{rest: httpd.Options{Codec: e.codec, Keys: e.keys, UpgradeURL: upgradeURL,
		Limits: map[access.Plan]access.Limits{access.PlanApify: high, access.PlanDemo: high}}}
	for _, f := range opts {
		f(&c)
	}
	var err error
	e.payments = nil
	if !c.noPayments {
		if e.payments, err = x402.OpenStore(filepath.Join(t.TempDir(), "payments.db"), nil); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.payments.Close() })
		f := c.facilitator
		if f == nil {
			f = &x402.Local{Store: e.payments}
		}
		if c.rest.Payments, err = x402.New(x402.Config{PayTo: payTo, Facilitator: f, Nonces: e.payments}); err != nil {
			t.Fatal(err)
		}
	}
	if e.svc, err = httpd.New(e.cat, c.rest); err != nil {
		t.Fatal(err)
	}

	e.rest = httpdtest.Serve(t, e.svc)

	ts := httptest.NewUnstartedServer(nil)
	e.url = "http://" + ts.Listener.Addr().String() + mcp.Path
	if c.mcp.PublicURL == "" {
		c.mcp.PublicURL = e.url
	}
	h, err := mcp.New(e.svc, c.mcp)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = h
	ts.Start()
	t.Cleanup(ts.Close)
	return e
}

// loopback trusts the test client as a proxy.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

const payTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// keyed is an http.RoundTripper sending a key as a bearer token.
type keyed struct{ key string }

func (k keyed) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens a client session with the SDK's own client; key "" sends
// none.
func (e *env) connect(key string) *sdk.ClientSession {
	e.t.Helper()
	cs, err := e.dial(key)
	if err != nil {
		e.t.Fatalf("connect: %v", err)
	}
	e.t.Cleanup(func() { cs.Close() })
	return cs
}

func (e *env) dial(key string) (*sdk.ClientSession, error) {
	hc := &http.Client{Timeout: 20 * time.Second}
	if key != "" {
		hc.Transport = keyed{key}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: e.url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
}

// call calls a tool and fails the test on a protocol error.
func call(t testing.TB, cs *sdk.ClientSession, name string, args map[string]any, meta sdk.Meta) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args, Meta: meta})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if !res.IsError {
		checkOutput(t, cs, name, res)
	}
	return res
}

// outputSchemas caches the resolved output schema of each tool as a
// session listed it.
var outputSchemas sync.Map // sessionTool → *jsonschema.Resolved

type sessionTool struct {
	cs   *sdk.ClientSession
	name string
}

// checkOutput validates a successful result's structuredContent against
// the output schema tools/list gives for the tool: the server does not
// validate its answers itself (call.go says why), so the tests do.
func checkOutput(t testing.TB, cs *sdk.ClientSession, name string, res *sdk.CallToolResult) {
	t.Helper()
	r, ok := outputSchemas.Load(sessionTool{cs, name})
	if !ok {
		list, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range list.Tools {
			b, _ := json.Marshal(tool.OutputSchema)
			var s jsonschema.Schema
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatalf("%s: output schema: %v", tool.Name, err)
			}
			resolved, err := s.Resolve(nil)
			if err != nil {
				t.Fatalf("%s: output schema: %v", tool.Name, err)
			}
			outputSchemas.Store(sessionTool{cs, tool.Name}, resolved)
		}
		if r, ok = outputSchemas.Load(sessionTool{cs, name}); !ok {
			t.Fatalf("tools/list has no %s", name)
		}
	}
	b, _ := json.Marshal(res.StructuredContent)
	var v any
	json.Unmarshal(b, &v)
	if err := r.(*jsonschema.Resolved).Validate(v); err != nil {
		t.Errorf("%s: structuredContent does not match the output schema: %v", name, err)
	}
}

// ok expects a successful result and returns its structuredContent as
// JSON.
func ok(t testing.TB, res *sdk.CallToolResult) []byte {
	t.Helper()
	if res.IsError {
		t.Fatalf("isError: %s", text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// failed expects a tool error whose text contains every want.
func failed(t testing.TB, res *sdk.CallToolResult, want ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("not an error: %s", text(res))
	}
	for _, w := range want {
		if !strings.Contains(text(res), w) {
			t.Errorf("error text %q does not contain %q", text(res), w)
		}
	}
}

// text joins the result's text contents.
func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// restGet answers a REST request over the REST listener with a key (X-Api-Key).
func (e *env) restGet(path, key string) (int, []byte) {
	e.t.Helper()
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.SetRequestURI("http://" + e.rest + path)
	req.Header.Set("X-Api-Key", key)
	if err := fasthttp.DoTimeout(req, res, 10*time.Second); err != nil {
		e.t.Fatal(err)
	}
	return res.StatusCode(), append([]byte(nil), res.Body()...)
}

// sameJSON fails unless a and b are the same JSON value.
func sameJSON(t testing.TB, what string, a, b []byte) {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v: %s", what, err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v: %s", what, err, b)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	if !bytes.Equal(xb, yb) {
		t.Errorf("%s: tool and REST differ\ntool: %.600s\nREST: %.600s", what, xb, yb)
	}
}

// Ids of the catalogue, as each kind of caller writes them.

func (e *env) token(row uint32) string { return e.codec.Token(publicid.Variant, e.cat.VarID[row]) }
func (e *env) raw(row uint32) string   { return strconv.FormatUint(uint64(e.cat.VarID[row]), 10) }

// outside returns a variant row that is not in the demo set.
func (e *env) outside() uint32 {
	in := map[uint32]bool{}
	for _, r := range e.cat.Demo {
		in[r] = true
	}
	for r := uint32(0); ; r++ {
		if !in[r] {
			return r
		}
	}
}

// modelName is the name of a demo car's model, a query that finds it.
func (e *env) modelName(row uint32) string {
	return e.cat.ModelName.String(e.cat.GenModel[e.cat.VarGen[row]])
}

// post sends one raw JSON-RPC POST to the MCP endpoint with header pairs
// (the first of a pair naming the header).
func (e *env) post(body string, headers ...string) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.url, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

// toolCall is the JSON-RPC body of a tools/call.
func toolCall(name, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
}

// problemOf decodes a problem body and checks its content type.
func problemOf(t testing.TB, res *http.Response, body []byte) map[string]any {
	t.Helper()
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Errorf("content type %q, want a problem", ct)
	}
	var p map[string]any
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("not a problem: %v: %s", err, body)
	}
	if p["status"] != float64(res.StatusCode) {
		t.Errorf("problem status %v, HTTP %d", p["status"], res.StatusCode)
	}
	return p
}
