package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
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

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/httpdtest"
	"github.com/vspec/catalogue/httpd/observe/grafana"
	"github.com/vspec/catalogue/loader/rollout"
)

// logWatcher collects the server's log lines and waits for one.
type logWatcher struct {
	mu    sync.Mutex
	lines []string
	cond  *sync.Cond
	eof   chan struct{} // closed once the stream has ended: every line is in
}

func watch(r io.Reader) *logWatcher {
	w := &logWatcher{eof: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	go func() {
		defer close(w.eof)
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

func (w *logWatcher) waitFor(t testing.TB, substr string, timeout time.Duration) {
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

// text is everything collected so far.
func (w *logWatcher) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines, "\n")
}

func freePort(t testing.TB) string {
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

// do sends req with the default client and returns the response and its
// body, read and closed.
func do(t *testing.T, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

// TestServerLifecycle runs the real binary as the README's first command
// does, in a fresh directory without -snapshot: it generates the default
// catalogue at the default path, serves, reloads on SIGHUP, refuses a
// corrupt snapshot while still serving, and drains on SIGTERM.
func TestServerLifecycle(t *testing.T) {
	dir := t.TempDir()
	bin := binary(t)
	snap := filepath.Join(dir, "data", "snapshots", "catalogue.snap")
	addr, adminAddr, mcpAddr := freePort(t), freePort(t), freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	state := filepath.Join(dir, "state")
	cmd := exec.CommandContext(ctx, bin, "-listen", addr, "-state", state, "-admin.listen", adminAddr, "-mcp.listen", mcpAddr)
	cmd.Dir = dir
	cmd.Env = cleanEnv("CATALOGUED_HTTP_DRAINTIMEOUT=5s")
	stderr, _ := cmd.StderrPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs, printed := watch(stderr), watch(stdout)
	logs.waitFor(t, "listening on http://"+addr, 10*time.Second)
	logs.waitFor(t, "no snapshot at data/snapshots/catalogue.snap: generating the default catalogue", 10*time.Second)
	// While the catalogue is generated the port answers: alive, not ready,
	// and the API a 503 saying why.
	for path, want := range map[string]int{"/livez": 200, "/readyz": 503, "/v1/health": 503} {
		res, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatalf("%s while generating: %v", path, err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want || want == 503 && res.Header.Get("Retry-After") == "" {
			t.Errorf("%s while generating: %d %s", path, res.StatusCode, b)
		}
	}
	logs.waitFor(t, "serving http://"+addr+"/v1", 90*time.Second)
	logs.waitFor(t, "admin API on http://"+adminAddr+"/admin", 10*time.Second)
	logs.waitFor(t, "serving MCP at http://"+mcpAddr+"/mcp", 10*time.Second)
	if code, err := health(addr); err != nil || code != 200 {
		t.Fatalf("health: %d, %v", code, err)
	}
	if res, err := http.Get("http://" + addr + "/readyz"); err != nil || res.StatusCode != 200 {
		t.Fatalf("readyz once serving: %v %v", res, err)
	}
	// A fresh state gets two keys, printed once with requests to try.
	printed.waitFor(t, "/docs. Start with -keys.bootstrap=false", 10*time.Second)
	first := regexp.MustCompile(`curl -s -H 'X-Api-Key: (vsc_apify_[0-9a-f]{48})' '(http://[^']+/brands\?limit=3)'`).FindStringSubmatch(printed.text())
	if first == nil {
		t.Fatalf("no curl line in %s", printed.text())
	}
	try, _ := http.NewRequest("GET", strings.Replace(first[2], "localhost", "127.0.0.1", 1), nil)
	try.Header.Set("X-Api-Key", first[1])
	if res, err := http.DefaultClient.Do(try); err != nil || res.StatusCode != 200 {
		t.Fatalf("the printed curl line: %v %v", res, err)
	}
	// The agent tool surface answers beside the REST API.
	req, _ := http.NewRequest("POST", "http://"+mcpAddr+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, listed := do(t, req)
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
		res, b := do(t, req)
		return res.StatusCode, string(b)
	}
	if code, body := adminCall("POST", "/admin/keys", `{"plan":"free"}`); code != 422 {
		t.Fatalf("the deprecated free plan was issued: %d %s", code, body)
	}
	code, body := adminCall("POST", "/admin/keys", `{"plan":"apify"}`)
	key := regexp.MustCompile(`vsc_apify_[0-9a-f]{48}`).FindString(body)
	if code != 201 || key == "" {
		t.Fatalf("admin create: %d %s", code, body)
	}
	get := func(path string) int {
		req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
		req.Header.Set("X-Api-Key", key)
		res, _ := do(t, req)
		return res.StatusCode
	}
	if c := get("/v1/brands/volkswagen"); c != 200 {
		t.Fatalf("a key created through the admin API: %d", c)
	}
	// Every request is counted; Prometheus scrapes the admin listener.
	code, metrics := adminCall("GET", "/metrics", "")
	if code != 200 || !strings.Contains(metrics, `catalogue_requests_total{route="/v1/brands/{slug}",status="200"} 1`) ||
		!strings.Contains(metrics, "catalogue_info{") || !strings.Contains(metrics, "go_goroutines") {
		t.Fatalf("metrics: %d %.2000s", code, metrics)
	}
	// The sample Grafana dashboard charts series that exist. Payments and
	// the key flow count events this test does not cause (the httpd tests
	// check those); reloads are counted from the first one on.
	for _, name := range regexp.MustCompile(`\b(?:catalogue|go|process)_[a-z_]+`).FindAllString(string(grafana.Dashboard), -1) {
		switch name {
		case "catalogue_payments_total", "catalogue_key_flow_total", "catalogue_reloads_total":
			continue
		}
		if !strings.Contains(metrics, name) {
			t.Errorf("the dashboard charts %s, which /metrics does not expose", name)
		}
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
	// Responses name the file served by its SHA-256.
	if res, err := http.Get("http://" + addr + "/v1/health"); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
		if want, _ := rollout.FileHash(snap); res.Header.Get("X-Catalogue-Version") != want {
			t.Errorf("X-Catalogue-Version %q, want the snapshot's SHA-256 %s", res.Header.Get("X-Catalogue-Version"), want)
		}
	}

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

// cleanEnv is the test's environment without CATALOGUED_ variables, which
// would configure the server under test, plus extra.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CATALOGUED_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// refused runs the binary in a fresh directory, where the default snapshot
// path does not exist, with env and args after a valid base configuration
// (-openapi.print, so that a start that gets past the checks ends without
// serving). It requires exit status 2 and that nothing was created: no
// snapshot generated, no state directory. It returns the standard error
// and the directory.
func refused(t *testing.T, env []string, args ...string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"-state", filepath.Join(dir, "state"), "-listen", "127.0.0.1:0", "-admin.listen", "", "-mcp.listen", "", "-openapi.print"}
	cmd := exec.CommandContext(ctx, binary(t), append(base, args...)...)
	cmd.Dir = dir
	cmd.Env = cleanEnv(env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Errorf("exit status %d (%v), want 2; stderr:\n%s", code, err, stderr.String())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("%s was created by a start with an invalid configuration; stderr:\n%s", e.Name(), stderr.String())
	}
	return stderr.String(), dir
}

// TestBadEnvironmentBeforeSnapshot: a bad environment value is reported
// before the snapshot is generated or loaded, with the flag, its
// environment twin and the expected form.
func TestBadEnvironmentBeforeSnapshot(t *testing.T) {
	const want = `-limits.demo (CATALOGUED_LIMITS_DEMO) = "abc": want three counts per minute, per day and per month, like 10,2000,20000`
	// At the default path, which would be generated.
	out, _ := refused(t, []string{"CATALOGUED_LIMITS_DEMO=abc"})
	if !strings.Contains(out, want) || !strings.Contains(out, "not started, 1 problem in") {
		t.Errorf("stderr does not report the limit alone:\n%s", out)
	}
	// At an explicit path that does not exist, with -generate.
	parent := t.TempDir()
	out, _ = refused(t, []string{"CATALOGUED_LIMITS_DEMO=abc", "CATALOGUED_GENERATE=true", "CATALOGUED_SNAPSHOT=" + filepath.Join(parent, "sub", "x.snap")})
	if !strings.Contains(out, want) || !strings.Contains(out, "not started, 1 problem in") {
		t.Errorf("stderr does not report the limit alone:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(parent, "sub")); err == nil {
		t.Errorf("the snapshot's directory was created")
	}
}

// TestConfigProblems: every class of bad value, from the command line or
// the environment, is refused at once, and the message names the flag, its
// environment twin and the expected form.
func TestConfigProblems(t *testing.T) {
	for _, c := range []struct {
		name string
		env  []string
		args []string
		want []string
		not  string // must not appear: a secret
	}{
		{name: "limits", args: []string{"-limits.apify", "1,2"},
			want: []string{`-limits.apify (CATALOGUED_LIMITS_APIFY) = "1,2": want three counts per minute, per day and per month, like 120,10000,100000`}},
		{name: "limits not counts", env: []string{"CATALOGUED_LIMITS_FREE=1,-2,x"},
			want: []string{`-limits.free (CATALOGUED_LIMITS_FREE) = "1,-2,x": want three counts per minute, per day and per month, like 20,200,1000`}},
		{name: "duration from the environment", env: []string{"CATALOGUED_HTTP_READTIMEOUT=10"},
			want: []string{`-http.readTimeout (CATALOGUED_HTTP_READTIMEOUT) = "10": want a duration with a unit, like 10s, 500ms`, `missing unit`}},
		{name: "duration from the command line", args: []string{"-http.writeTimeout", "10"},
			want: []string{`-http.writeTimeout: want a duration with a unit, like 10s, 500ms`}},
		{name: "zero duration", args: []string{"-http.drainTimeout", "0s"},
			want: []string{`-http.drainTimeout (CATALOGUED_HTTP_DRAINTIMEOUT) = "0s": want a positive duration`}},
		{name: "metering lag", env: []string{"CATALOGUED_METERING_FLUSHINTERVAL=2s", "CATALOGUED_METERING_MAXLAG=1s"},
			want: []string{`-metering.maxLag (CATALOGUED_METERING_MAXLAG) = "1s": want a duration longer than -metering.flushInterval (2s)`}},
		{name: "payment timeout", args: []string{"-x402.maxTimeout", "1500ms"},
			want: []string{`-x402.maxTimeout (CATALOGUED_X402_MAXTIMEOUT) = "1.5s": want whole seconds, at least 10s`}},
		{name: "settlement past the write timeout", args: []string{"-x402.settleTimeout", "12s"},
			want: []string{`-x402.settleTimeout (CATALOGUED_X402_SETTLETIMEOUT) = "12s": want a duration shorter than -http.writeTimeout (10s)`}},
		{name: "number", env: []string{"CATALOGUED_X402_PERMINUTE=many"},
			want: []string{`-x402.perMinute (CATALOGUED_X402_PERMINUTE) = "many": want a whole number`, "not started, 1 problem in"}},
		{name: "bool", env: []string{"CATALOGUED_X402_DISABLE=perhaps"},
			want: []string{`-x402.disable (CATALOGUED_X402_DISABLE) = "perhaps": want true or false`}},
		{name: "trusted proxies", env: []string{"CATALOGUED_HTTP_TRUSTEDPROXIES=10.0.0.0/8, 192.0.2.1"},
			want: []string{`-http.trustedProxies (CATALOGUED_HTTP_TRUSTEDPROXIES) = "10.0.0.0/8, 192.0.2.1": want comma-separated CIDRs like 10.0.0.0/8`, `"192.0.2.1" is not one`}},
		{name: "PROXY protocol without proxies", args: []string{"-http.proxyProtocol"},
			want: []string{`-http.proxyProtocol (CATALOGUED_HTTP_PROXYPROTOCOL) = "true": want -http.trustedProxies (CATALOGUED_HTTP_TRUSTEDPROXIES) set too`}},
		{name: "store scheme", env: []string{"CATALOGUED_STORE=http://:hunter2hunter2@example.org/0"},
			want: []string{`-store (CATALOGUED_STORE) = "http://:xxxxx@example.org/0": want redis://[USER:PASSWORD@]HOST:PORT/DB or rediss://…[?ca=FILE] for TLS, not the scheme "http"`},
			not:  "hunter2"},
		{name: "store host", args: []string{"-store", "redis:///0"},
			want: []string{`-store (CATALOGUED_STORE) = "redis:///0": want redis://[USER:PASSWORD@]HOST:PORT/DB or rediss://…[?ca=FILE] for TLS: the host is missing`}},
		{name: "store timeout", args: []string{"-store.timeout", "0s"},
			want: []string{`-store.timeout (CATALOGUED_STORE_TIMEOUT) = "0s": want a positive duration, like 50ms`}},
		{name: "x402 asset", args: []string{"-x402.asset", "0xabc"},
			want: []string{`-x402.asset (CATALOGUED_X402_ASSET) = "0xabc": want ADDRESS,NAME,VERSION`}},
		{name: "x402 asset address", args: []string{"-x402.asset", "0xabc,USDC,2"},
			want: []string{`-x402.asset (CATALOGUED_X402_ASSET) = "0xabc,USDC,2": want ADDRESS,NAME,VERSION whose ADDRESS is an EVM address`}},
		{name: "x402 payTo", env: []string{"CATALOGUED_X402_PAYTO=nobody"},
			want: []string{`-x402.payTo (CATALOGUED_X402_PAYTO) = "nobody": want an EVM address, 0x and 40 hex digits`}},
		{name: "x402 network", args: []string{"-x402.network", "base"},
			want: []string{`-x402.network (CATALOGUED_X402_NETWORK) = "base": want a CAIP-2 EVM network eip155:<chain id>`}},
		{name: "x402 network without asset", args: []string{"-x402.network", "eip155:1"},
			want: []string{`-x402.network (CATALOGUED_X402_NETWORK) = "eip155:1": want -x402.asset (CATALOGUED_X402_ASSET) set too`}},
		{name: "starttls", env: []string{"CATALOGUED_MAIL_STARTTLS=yes"},
			want: []string{`-mail.starttls (CATALOGUED_MAIL_STARTTLS) = "yes": want required, opportunistic or off`}},
		{name: "smtp address", args: []string{"-mail.smtp", "smtp.example.com"},
			want: []string{`-mail.smtp (CATALOGUED_MAIL_SMTP) = "smtp.example.com": want host:port of the SMTP relay`}},
		{name: "mail sender", args: []string{"-mail.from", "keys at example"},
			want: []string{`-mail.from (CATALOGUED_MAIL_FROM) = "keys at example": want a sender address`}},
		{name: "public URL", args: []string{"-http.publicURL", "api.example.com/v1"},
			want: []string{`-http.publicURL (CATALOGUED_HTTP_PUBLICURL) = "api.example.com/v1": want an absolute http(s) URL`}},
		{name: "facilitator URL", env: []string{"CATALOGUED_X402_FACILITATOR=ftp://x402.example"},
			want: []string{`-x402.facilitator (CATALOGUED_X402_FACILITATOR) = "ftp://x402.example": want an absolute http(s) URL`}},
		{name: "MCP public URL", args: []string{"-mcp.publicURL", "/mcp"},
			want: []string{`-mcp.publicURL (CATALOGUED_MCP_PUBLICURL) = "/mcp": want an absolute http(s) URL`}},
		{name: "upgrade URL", env: []string{"CATALOGUED_UPGRADE_URL=pricing"},
			want: []string{`-upgrade.url (CATALOGUED_UPGRADE_URL) = "pricing": want an absolute http(s) URL`}},
		{name: "short secret", env: []string{"CATALOGUED_IDS_SECRET=hunter2"}, not: "hunter2",
			want: []string{`-ids.secret (CATALOGUED_IDS_SECRET) = (7 characters, not shown): want at least 32 bytes`}},
		{name: "unreadable secret", args: []string{"-ids.secret", "file:///no/such/token.secret"},
			want: []string{`-ids.secret (CATALOGUED_IDS_SECRET) = "file:///no/such/token.secret": want at least 32 bytes`, "no such file"}},
		{name: "short admin token", args: []string{"-admin.listen", "127.0.0.1:0", "-admin.token", "opensesame"}, not: "opensesame",
			want: []string{`-admin.token (CATALOGUED_ADMIN_TOKEN) = (10 characters, not shown): want at least 16 characters`}},
		{name: "listen address", args: []string{"-listen", "8080"},
			want: []string{`-listen (CATALOGUED_LISTEN) = "8080": want a TCP address host:port to listen on, like 127.0.0.1:8080 or :8080`}},
		{name: "MCP listen address", args: []string{"-mcp.listen", "localhost:mcp"},
			want: []string{`-mcp.listen (CATALOGUED_MCP_LISTEN) = "localhost:mcp": want a TCP address host:port`}},
		{name: "origin without store", args: []string{"-origin", "/srv/snapshots"},
			want: []string{`-origin (CATALOGUED_ORIGIN) = "/srv/snapshots": want -store (CATALOGUED_STORE) set too`}},
		{name: "store URL", env: []string{"CATALOGUED_STORE=redis://u:hunter2@redis:port/0"}, not: "hunter2",
			want: []string{`-store (CATALOGUED_STORE) = "(not a URL)": want redis://[USER:PASSWORD@]HOST:PORT/DB`, "invalid port"}},
		{name: "origin", args: []string{"-store", "redis://127.0.0.1:6379/0", "-origin", "s3://bucket/snapshots"},
			want: []string{`-origin (CATALOGUED_ORIGIN) = "s3://bucket/snapshots": want a directory or an http(s) URL`, `scheme "s3"`}},
		{name: "origin timeout", env: []string{"CATALOGUED_ORIGIN_IDLETIMEOUT=0s"},
			want: []string{`-origin.idleTimeout (CATALOGUED_ORIGIN_IDLETIMEOUT) = "0s": want a positive duration, like 30s`}},
		{name: "rollout poll", args: []string{"-rollout.poll", "0s"},
			want: []string{`-rollout.poll (CATALOGUED_ROLLOUT_POLL) = "0s": want a positive duration`}},
		{name: "argument", args: []string{"-x402.disable", "false"},
			want: []string{`unexpected argument "false": catalogued takes flags only (a bool flag takes a value as -flag=false, not -flag false)`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _ := refused(t, c.env, c.args...)
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("stderr lacks %q:\n%s", w, out)
				}
			}
			if c.not != "" && strings.Contains(out, c.not) {
				t.Errorf("stderr shows the secret %q:\n%s", c.not, out)
			}
		})
	}
}

// TestConfigProblemsAllAtOnce: one start reports every problem, from the
// environment and the command line.
func TestConfigProblemsAllAtOnce(t *testing.T) {
	out, _ := refused(t, []string{"CATALOGUED_LIMITS_DEMO=abc", "CATALOGUED_HTTP_IDLETIMEOUT=60"},
		"-mail.starttls", "always", "-snapshot", filepath.Join(t.TempDir(), "y.snap"))
	for _, w := range []string{"not started, 4 problems in the flags and environment",
		"-limits.demo (CATALOGUED_LIMITS_DEMO)", "-http.idleTimeout (CATALOGUED_HTTP_IDLETIMEOUT)",
		"-mail.starttls (CATALOGUED_MAIL_STARTTLS)", "-snapshot (CATALOGUED_SNAPSHOT)"} {
		if !strings.Contains(out, w) {
			t.Errorf("stderr lacks %q:\n%s", w, out)
		}
	}
}

// TestExplicitSnapshotMissing: a -snapshot path that does not exist, given
// on the command line or in the environment, is an error naming it and how
// to make one; nothing is generated there.
func TestExplicitSnapshotMissing(t *testing.T) {
	parent := t.TempDir()
	snap := filepath.Join(parent, "no", "such", "x.snap")
	check := func(out string) {
		t.Helper()
		for _, w := range []string{`-snapshot (CATALOGUED_SNAPSHOT) = "` + snap + `": no such snapshot file`,
			"catalogue gen -o " + snap, "add -generate (CATALOGUED_GENERATE=true)"} {
			if !strings.Contains(out, w) {
				t.Errorf("stderr lacks %q:\n%s", w, out)
			}
		}
		if _, err := os.Stat(filepath.Join(parent, "no")); err == nil {
			t.Errorf("%s was created", filepath.Join(parent, "no"))
		}
	}
	out, _ := refused(t, nil, "-snapshot", snap)
	check(out)
	out, _ = refused(t, []string{"CATALOGUED_SNAPSHOT=" + snap})
	check(out)
	// The default path, given explicitly, is explicit too.
	out, _ = refused(t, nil, "-snapshot", "data/snapshots/catalogue.snap")
	if !strings.Contains(out, `-snapshot (CATALOGUED_SNAPSHOT) = "data/snapshots/catalogue.snap": no such snapshot file`) {
		t.Errorf("stderr lacks the missing snapshot:\n%s", out)
	}
}

// TestGenerateFlag: with -generate an explicit path that does not exist is
// generated. The test stops the server once generation has started.
func TestGenerateFlag(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "sub", "x.snap")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), "-snapshot", snap, "-generate", "-state", filepath.Join(dir, "state"),
		"-listen", "127.0.0.1:0", "-admin.listen", "", "-mcp.listen", "", "-openapi.print")
	cmd.Env = cleanEnv()
	cmd.Stdout = io.Discard
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	watch(stderr).waitFor(t, "no snapshot at "+snap+": generating the default catalogue there first", 30*time.Second)
}

// TestOpenAPIPrintIsTheDocumentOnly: -openapi.print on an empty key store
// writes the description and nothing else to standard output (the
// first-start keys would make it unreadable to linters) and creates no key.
func TestOpenAPIPrintIsTheDocumentOnly(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "small.snap")
	if err := os.WriteFile(snap, httpdtest.Snapshot(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), "-snapshot", snap, "-state", filepath.Join(dir, "state"),
		"-listen", "127.0.0.1:0", "-admin.listen", "", "-mcp.listen", "", "-openapi.print")
	cmd.Env = cleanEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("standard output is not the JSON document alone: %v\n%.300s", err, out)
	}
	if doc["openapi"] == nil || doc["paths"] == nil {
		t.Fatalf("standard output is not an OpenAPI document: %.300s", out)
	}
	keys, err := access.Open(filepath.Join(dir, "state"))
	if err != nil {
		t.Fatal(err)
	}
	defer keys.Close()
	if list, _ := keys.List(); len(list) != 0 {
		t.Errorf("-openapi.print created %d keys", len(list))
	}
}

func TestPlanSnapshot(t *testing.T) {
	dir := t.TempDir()
	exists := filepath.Join(dir, "exists.snap")
	if err := os.WriteFile(exists, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.snap")
	for _, c := range []struct {
		path               string
		explicit, generate bool
		want               bool
		err                string
	}{
		{path: exists, explicit: true, want: false},
		{path: exists, explicit: false, generate: true, want: false},
		{path: missing, explicit: false, want: true},                // the default path
		{path: missing, explicit: true, generate: true, want: true}, // -generate
		{path: missing, explicit: true, err: "no such snapshot file"},
		{path: dir, explicit: true, err: "is a directory"},
		{path: filepath.Join(exists, "x.snap"), explicit: false, err: "not a directory"},
	} {
		got, err := planSnapshot(c.path, c.explicit, c.generate)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("planSnapshot(%s, explicit %v, generate %v) = %v, %v; want %v, %q", c.path, c.explicit, c.generate, got, err, c.want, c.err)
		}
	}
}

// TestExplainParseErrors: bool, number and duration flags say what they
// want on the command line, and a bool flag still takes no value.
func TestExplainParseErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-d", "10"}, `invalid value "10" for flag -d: want a duration with a unit, like 10s, 500ms or 1m30s (time: missing unit in duration "10")`},
		{[]string{"-n", "ten"}, `invalid value "ten" for flag -n: want a whole number`},
		{[]string{"-n", "99999999999999999999"}, `invalid value "99999999999999999999" for flag -n: want a whole number (out of range)`},
		{[]string{"-b=maybe"}, `invalid boolean value "maybe" for -b: want true or false`},
		{[]string{"-b", "-d", "1m30s", "-n", "3"}, ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		b, d, n := fs.Bool("b", false, ""), fs.Duration("d", time.Second, ""), fs.Int64("n", 1, "")
		explainParseErrors(fs)
		err := fs.Parse(c.args)
		if c.want == "" {
			if err != nil || !*b || *d != 90*time.Second || *n != 3 {
				t.Errorf("%q: %v, -b %v -d %v -n %v", c.args, err, *b, *d, *n)
			}
		} else if err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.args, err, c.want)
		} else if *d != time.Second || *n != 1 {
			t.Errorf("%q: a value that does not parse changed the flag: -d %v -n %v", c.args, *d, *n)
		}
	}
}
