package admin

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/hostguard"
)

// tok is the admin token of the tests' handlers.
const tok = "admin-token-of-16+"

// newHandler returns a handler with the token tok over a key store in a
// temporary directory, closed when the test ends.
func newHandler(t *testing.T) *Handler {
	t.Helper()
	keys, err := access.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { keys.Close() })
	return &Handler{Keys: keys, Token: []byte(tok)}
}

func TestAdminAPI(t *testing.T) {
	h := newHandler(t)
	keys := h.Keys
	reloads := 0
	h.Reload = func() (string, error) {
		reloads++
		if reloads > 1 {
			return "", errors.New("corrupt snapshot: truncated")
		}
		return "abcd", nil
	}
	send := serve(t, h)
	call := func(method, path, token, body string) (int, map[string]any) {
		t.Helper()
		code, b := send(method, path, token, body)
		var m map[string]any
		json.Unmarshal([]byte(b), &m)
		return code, m
	}
	if code, _ := call("GET", "/admin/keys", "", ""); code != 401 {
		t.Errorf("no token: %d", code)
	}
	if code, _ := call("GET", "/admin/keys", "wrong-token-of-16+", ""); code != 401 {
		t.Errorf("wrong token: %d", code)
	}
	code, m := call("POST", "/admin/keys", tok, `{"plan":"apify","email":"a@example.org"}`)
	if code != 201 {
		t.Fatalf("create: %d %v", code, m)
	}
	created := m["data"].(map[string]any)
	key := created["api_key"].(string)
	if k, err := keys.Lookup([]byte(key)); err != nil || k.Plan != access.PlanApify {
		t.Fatal("the created key is not usable")
	}
	if code, m := call("POST", "/admin/keys", tok, `{"plan":"gold"}`); code != 400 {
		t.Errorf("unknown plan: %d %v", code, m)
	}
	if code, _ := call("POST", "/admin/keys", tok, `{"plan":"apify","extra":1}`); code != 400 {
		t.Errorf("unknown field: %d", code)
	}
	_, m = call("GET", "/admin/keys", tok, "")
	list := m["data"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["api_key"] != nil {
		t.Errorf("list %v (must never show key texts)", list)
	}
	hash := created["hash"].(string)
	if code, m := call("POST", "/admin/keys/"+hash[:12]+"/revoke", tok, ""); code != 200 || m["data"].(map[string]any)["state"] != "revoked" {
		t.Errorf("revoke: %d %v", code, m)
	}
	if k, _ := keys.Lookup([]byte(key)); k.State != access.StateRevoked {
		t.Error("revoke did not reach the in-memory index")
	}
	if code, _ := call("POST", "/admin/keys/ffffffff/revoke", tok, ""); code != 404 {
		t.Errorf("unknown key: %d", code)
	}
	if code, m := call("POST", "/admin/reload", tok, ""); code != 200 || m["data"].(map[string]any)["identity"] != "abcd" {
		t.Errorf("reload: %d %v", code, m)
	}
	if code, m := call("POST", "/admin/reload", tok, ""); code != 422 || !strings.Contains(m["detail"].(string), "still served") {
		t.Errorf("refused reload: %d %v", code, m)
	}
}

// TestMetricsProfilerAndDeprecatedPlan: /metrics and /debug/pprof/ answer
// behind the token; the free plan is refused unless allowed.
func TestMetricsProfilerAndDeprecatedPlan(t *testing.T) {
	h := newHandler(t)
	h.Metrics = func(w io.Writer) { io.WriteString(w, "catalogue_up 1\n") }
	get := serve(t, h)
	for _, p := range []string{"/metrics", "/debug/pprof/", "/debug/pprof/heap"} {
		if code, _ := get("GET", p, "", ""); code != 401 {
			t.Errorf("%s without the token: %d", p, code)
		}
	}
	if code, body := get("GET", "/metrics", tok, ""); code != 200 || body != "catalogue_up 1\n" {
		t.Errorf("metrics: %d %q", code, body)
	}
	if code, body := get("GET", "/debug/pprof/", tok, ""); code != 200 || !strings.Contains(body, "goroutine") {
		t.Errorf("pprof index: %d", code)
	}
	if code, body := get("GET", "/debug/pprof/goroutine?debug=1", tok, ""); code != 200 || !strings.Contains(body, "goroutine profile") {
		t.Errorf("goroutine profile: %d", code)
	}
	if code, body := get("POST", "/admin/keys", tok, `{"plan":"free"}`); code != 422 || !strings.Contains(body, "-admin.allowDeprecated") {
		t.Errorf("a free key was created without -admin.allowDeprecated: %d %s", code, body)
	}
	h.AllowDeprecated = true
	if code, body := get("POST", "/admin/keys", tok, `{"plan":"free"}`); code != 201 {
		t.Errorf("a free key with -admin.allowDeprecated: %d %s", code, body)
	}
}

// serve starts h on a test server and returns a function sending a request
// with a bearer token (none when empty) and headers (name, value, ...;
// "Host" sets the request's Host): the status and the body.
func serve(t *testing.T, h http.Handler) func(method, path, token, body string, headers ...string) (int, string) {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return func(method, path, token, body string, headers ...string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			if headers[i] == "Host" {
				req.Host = headers[i+1]
			} else {
				req.Header.Set(headers[i], headers[i+1])
			}
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
}

// TestTokenFile: the token file is created once, whole, and read back; a
// token file that exists but holds no token is refused with the file's
// name and what to do, never taken as a token that lets no one in.
//
// Reproduction (before): leave state/admin.token empty (as a start that
// failed on a full disk did: os.WriteFile had created it) and start:
// catalogued started, said nothing, and the admin API answered 401 to
// every token.
func TestTokenFile(t *testing.T) {
	dir := t.TempDir()
	tok, err := LoadOrCreateToken("", dir)
	if err != nil || len(tok) != 64 {
		t.Fatalf("a new token: %q %v", tok, err)
	}
	path := filepath.Join(dir, "admin.token")
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the token file: %v %v", st, err)
	}
	if again, err := LoadOrCreateToken("", dir); err != nil || string(again) != string(tok) {
		t.Errorf("read back: %q %v, want %q", again, err, tok)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	for _, content := range []string{"", "\n", "  \t\n", "short-token\n"} {
		os.WriteFile(path, []byte(content), 0o600)
		got, err := LoadOrCreateToken("", dir)
		if err == nil {
			t.Errorf("a token file holding %q: accepted as %q", content, got)
			continue
		}
		for _, w := range []string{path, "want an admin token of at least 16", "Remove the file to have a new token created"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("a token file holding %q: %v lacks %q", content, err, w)
			}
		}
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Errorf("the token file was changed to %q", b)
		}
	}
	// -admin.token wins over the file, and is checked the same way.
	if got, err := LoadOrCreateToken("a-literal-token-of-16+", dir); err != nil || string(got) != "a-literal-token-of-16+" {
		t.Errorf("-admin.token: %q %v", got, err)
	}
	if _, err := LoadOrCreateToken("short", dir); err == nil {
		t.Error("a short -admin.token was accepted")
	}
}

// TestHostAndOrigin: the admin API answers only to its own hosts, and to
// no browser page of another origin, whatever the token: DNS rebinding
// must not reach it. The profiler's cmdline is the one given.
//
// Reproduction (before): curl -H 'Host: evil.example' -H 'Origin:
// http://evil.example' -H "Authorization: Bearer $TOKEN"
// http://127.0.0.1:8081/admin/keys answered 200 with the keys (admin.go
// checked the token only), and /debug/pprof/cmdline was net/http/pprof's,
// os.Args as typed.
func TestHostAndOrigin(t *testing.T) {
	h := newHandler(t)
	send := serve(t, h)
	f := func(want int, path string, headers ...string) string {
		t.Helper()
		code, body := send("GET", path, tok, "", headers...)
		if code != want {
			t.Errorf("%s %v: %d, want %d: %s", path, headers, code, want, body)
		}
		return body
	}
	f(200, "/admin/keys")
	f(200, "/admin/keys", "Host", "localhost:8081")
	f(200, "/admin/keys", "Host", "[::1]:8081", "Origin", "http://localhost:3000")
	for _, hdr := range [][]string{
		{"Host", "evil.example"},
		{"Host", "evil.example:8081"},
		{"Host", "127.0.0.1.evil.example:8081"},
		{"Origin", "http://evil.example"},
		{"Origin", "null"},
	} {
		if body := f(403, "/admin/keys", hdr...); !strings.Contains(body, "-admin.allowedHosts") {
			t.Errorf("%v: %s", hdr, body)
		}
		f(403, "/debug/pprof/cmdline", hdr...)
	}
	h.Guard = hostguard.New([]string{"admin.internal"}, nil)
	f(200, "/admin/keys", "Host", "admin.internal:8081")
	f(403, "/admin/keys", "Host", "localhost:8081")

	h.Guard = nil
	if got := f(200, "/debug/pprof/cmdline"); got != os.Args[0] {
		t.Errorf("cmdline without Cmdline: %q, want the program's name alone", got)
	}
	h.Cmdline = []string{"catalogued", "-admin.token", "xxxxx"}
	if got := f(200, "/debug/pprof/cmdline"); got != "catalogued\x00-admin.token\x00xxxxx" {
		t.Errorf("cmdline: %q", got)
	}
}
