package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/data/vocab"
	"github.com/vspec/catalogue/httpd/httpdtest"
	"github.com/vspec/catalogue/httpd/keyflow/flowtest"
	"github.com/vspec/catalogue/loader"
)

// TestKeySurvivesKill checks that a key, once shown to its owner, survives
// a kill -9 of the server right after the response.
func TestKeySurvivesKill(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "catalogued")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	s, err := gen.Generate(vocab.Default(), gen.Options{Scale: 0.01, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "small.snap")
	if err := loader.WriteFile(snap, s); err != nil {
		t.Fatal(err)
	}
	dns := flowtest.StartDNS(t, map[string]flowtest.Records{"garage-lindqvist.se": {MX: []string{"mx.garage-lindqvist.se"}}})
	state, outbox := filepath.Join(dir, "state"), filepath.Join(dir, "outbox")
	start := func() (*exec.Cmd, string, *logWatcher) {
		addr := freePort(t)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		t.Cleanup(cancel)
		cmd := exec.CommandContext(ctx, bin, "-listen", addr, "-snapshot", snap, "-state", state, "-admin.listen", "", "-mcp.listen", "",
			"-dns.server", dns.Addr, "-mail.outbox", outbox)
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		logs := watch(stderr)
		logs.waitFor(t, "serving http://"+addr+"/v1", 30*time.Second)
		return cmd, addr, logs
	}
	cmd, addr, _ := start()
	res, err := http.Post("http://"+addr+"/v1/keys/demo", "application/json", strings.NewReader(
		`{"email":"ada@garage-lindqvist.se","name":"Ada","company":"Garage Lindqvist AB","website":"garage-lindqvist.se","role":"Developer","use_case":"Spec sheets on our used-car listings.","accept_tos":true}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 202 {
		t.Fatalf("key request: %d", res.StatusCode)
	}
	// The link is in the outbox's file as it is, copyable (no quoted-printable).
	token := flowtest.VerifyToken(t, outbox)
	res, err = http.Post("http://"+addr+"/v1/keys/demo/verify?t="+token, "", nil) // the confirmation
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	cmd.Process.Signal(syscall.SIGKILL) // at once after the response
	cmd.Wait()
	key := regexp.MustCompile(`vsc_demo_[0-9a-f]{48}`).Find(body)
	if res.StatusCode != 200 || key == nil {
		t.Fatalf("verify: %d %s", res.StatusCode, body)
	}
	cmd, addr, _ = start()
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	req, _ := http.NewRequest("GET", "http://"+addr+"/v1/demo", nil)
	req.Header.Set("X-Api-Key", string(key))
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("the key shown before kill -9 answers %d after the restart", res.StatusCode)
	}
}

// TestLocalModeKey: where the resolver denies every name (a machine
// without DNS), a key request is a 503 naming the resolver, not a 422
// blaming the mail domain; with -dev it is accepted, the activation link is
// printed on standard output with its one-step confirmation, and that
// confirmation gives the key. -dev with -mail.smtp is refused at start.
func TestLocalModeKey(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "small.snap")
	if err := os.WriteFile(snap, httpdtest.Snapshot(), 0o644); err != nil {
		t.Fatal(err)
	}
	denied := flowtest.StartDeniedDNS(t)
	request := `{"email":"dev@gmail.com","name":"Dev","company":"Laptop Ltd","website":"example.org","role":"Developer","use_case":"Trying the API on my own machine.","accept_tos":true}`
	for _, dev := range []bool{false, true} {
		addr := freePort(t)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		args := []string{"-listen", addr, "-snapshot", snap, "-state", filepath.Join(dir, fmt.Sprint("state-", dev)), "-admin.listen", "", "-mcp.listen", "",
			"-dns.server", denied.Addr, "-keys.bootstrap=false"}
		if dev {
			args = append(args, "-dev")
		}
		cmd := exec.CommandContext(ctx, binary(t), args...)
		cmd.Env = cleanEnv()
		stderr, _ := cmd.StderrPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
		logs, printed := watch(stderr), watch(stdout)
		logs.waitFor(t, "serving http://"+addr+"/v1", 30*time.Second)
		res, err := http.Post("http://"+addr+"/v1/keys/demo", "application/json", strings.NewReader(request))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !dev {
			if res.StatusCode != 503 || !strings.Contains(string(body), "Could not confirm that gmail.com accepts mail: the resolver at "+denied.Addr+" did not answer") {
				t.Errorf("without -dev: %d %s", res.StatusCode, body)
			}
			continue
		}
		if res.StatusCode != 202 {
			t.Fatalf("with -dev: %d %s", res.StatusCode, body)
		}
		logs.waitFor(t, "local mode (-dev): the mail domain of a demo-key request was not checked", 5*time.Second)
		printed.waitFor(t, "curl -s -X POST 'http://"+addr+"/v1/keys/demo/verify?t=", 5*time.Second)
		link := regexp.MustCompile(`curl -s -X POST '([^']+)'`).FindStringSubmatch(printed.text())[1]
		res, err = http.Post(link, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !regexp.MustCompile(`"api_key":"vsc_demo_[0-9a-f]{48}"`).Match(body) {
			t.Errorf("the printed confirmation: %d %s", res.StatusCode, body)
		}
	}
	out, _ := refused(t, nil, "-dev", "-mail.smtp", "smtp.example.com:587")
	if !strings.Contains(out, `-mail.smtp (CATALOGUED_MAIL_SMTP) = "smtp.example.com:587": want it empty with -dev (CATALOGUED_DEV)`) {
		t.Errorf("-dev with a relay:\n%s", out)
	}
}
