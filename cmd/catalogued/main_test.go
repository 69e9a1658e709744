package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// logWatcher collects the server's log lines and waits for one.
type logWatcher struct {
	mu    sync.Mutex
	lines []string
	cond  *sync.Cond
}

func watch(r io.Reader) *logWatcher {
	w := &logWatcher{}
	w.cond = sync.NewCond(&w.mu)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			w.mu.Lock()
			w.lines = append(w.lines, sc.Text())
			w.cond.Broadcast()
			w.mu.Unlock()
		}
	}()
	return w
}

func (w *logWatcher) waitFor(t *testing.T, substr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	go func() { time.Sleep(timeout); w.cond.Broadcast() }()
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		for _, l := range w.lines {
			if strings.Contains(l, substr) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line %q within %s; log:\n%s", substr, timeout, strings.Join(w.lines, "\n"))
		}
		w.cond.Wait()
	}
}

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func health(addr string) (int, error) {
	resp, err := http.Get("http://" + addr + "/v1/health")
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// TestServerLifecycle runs the real binary as the README does: with no
// snapshot it generates the default catalogue, serves, reloads on SIGHUP,
// refuses a corrupt snapshot while still serving, and drains on SIGTERM.
func TestServerLifecycle(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "catalogued")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	snap := filepath.Join(dir, "snapshots", "catalogue.snap")
	addr, adminAddr, mcpAddr := freePort(t), freePort(t), freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	state := filepath.Join(dir, "state")
	cmd := exec.CommandContext(ctx, bin, "-listen", addr, "-snapshot", snap, "-state", state, "-admin.listen", adminAddr, "-mcp.listen", mcpAddr)
	cmd.Env = append(os.Environ(), "CATALOGUED_HTTP_DRAINTIMEOUT=5s")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs := watch(stderr)
	logs.waitFor(t, "no snapshot at "+snap+": generating the default catalogue", 10*time.Second)
	logs.waitFor(t, "serving http://"+addr+"/v1", 90*time.Second)
	logs.waitFor(t, "admin API on http://"+adminAddr+"/admin", 10*time.Second)
	logs.waitFor(t, "serving MCP at http://"+mcpAddr+"/mcp", 10*time.Second)
	if code, err := health(addr); err != nil || code != 200 {
		t.Fatalf("health: %d, %v", code, err)
	}
	// The agent tool surface answers beside the REST API.
	req, _ := http.NewRequest("POST", "http://"+mcpAddr+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	listed, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, tool := range []string{"search_catalogue", "filter_catalogue", "get_specs_full", "compare_full"} {
		if res.StatusCode != 200 || !strings.Contains(string(listed), `"name":"`+tool+`"`) {
			t.Fatalf("MCP tools/list: %d, no %s: %.300s", res.StatusCode, tool, listed)
		}
	}

	// Keys are managed through the admin API while the server runs.
	token, err := os.ReadFile(filepath.Join(state, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	adminCall := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, "http://"+adminAddr+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, body := adminCall("POST", "/admin/keys", `{"plan":"free"}`)
	key := regexp.MustCompile(`vsc_free_[0-9a-f]{48}`).FindString(body)
	if code != 201 || key == "" {
		t.Fatalf("admin create: %d %s", code, body)
	}
	get := func(path string) int {
		req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
		req.Header.Set("X-Api-Key", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if c := get("/v1/brands/volkswagen"); c != 200 {
		t.Fatalf("a key created through the admin API: %d", c)
	}
	if code, body := adminCall("POST", "/admin/keys/"+key+"/revoke", ""); code != 200 {
		t.Fatalf("admin revoke: %d %s", code, body)
	}
	if c := get("/v1/brands/volkswagen"); c != 403 {
		t.Fatalf("a revoked key: %d", c)
	}
	// The key store is locked while the server runs; the CLI says so.
	out, err := exec.Command("go", "run", "../catalogue", "keys", "list", "-state", state).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "in use by another process") {
		t.Errorf("catalogue keys list on a running server's state: %v\n%s", err, out)
	}

	cmd.Process.Signal(syscall.SIGHUP)
	logs.waitFor(t, "reloaded snapshot", 30*time.Second)

	good, _ := os.ReadFile(snap)
	os.WriteFile(snap, good[:len(good)/3], 0o644)
	cmd.Process.Signal(syscall.SIGHUP)
	logs.waitFor(t, "reload refused, still serving the previous catalogue (1 refused so far)", 30*time.Second)
	if code, err := health(addr); err != nil || code != 200 {
		t.Fatalf("health after a refused reload: %d, %v", code, err)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	logs.waitFor(t, "draining requests in flight (at most 5s)", 10*time.Second)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
	logs.waitFor(t, "stopped in", time.Second)
}

func TestEnvTwins(t *testing.T) {
	f := func(flagName, want string) {
		t.Helper()
		if got := envName(flagName); got != want {
			t.Errorf("envName(%q) = %q, want %q", flagName, got, want)
		}
	}
	f("snapshot", "CATALOGUED_SNAPSHOT")
	f("http.readTimeout", "CATALOGUED_HTTP_READTIMEOUT")
}
