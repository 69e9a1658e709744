package main

import (
	"context"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/data/vocab"
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
	res, err = http.Get("http://" + addr + "/v1/keys/demo/verify?t=" + token)
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
