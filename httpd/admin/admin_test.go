package admin

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vspec/catalogue/httpd/access"
)

func TestAdminAPI(t *testing.T) {
	keys, err := access.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer keys.Close()
	reloads := 0
	h := &Handler{Keys: keys, Token: []byte("admin-token-of-16+"), Reload: func() (string, error) {
		reloads++
		if reloads > 1 {
			return "", errors.New("corrupt snapshot: truncated")
		}
		return "abcd", nil
	}}
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
	tok := "admin-token-of-16+"
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
	keys, err := access.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer keys.Close()
	tok := "admin-token-of-16+"
	h := &Handler{Keys: keys, Token: []byte(tok), Metrics: func(w io.Writer) { io.WriteString(w, "catalogue_up 1\n") }}
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
// with a bearer token (none when empty): the status and the body.
func serve(t *testing.T, h http.Handler) func(method, path, token, body string) (int, string) {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return func(method, path, token, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
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
