package main

import (
	"flag"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAdminHostAndCmdline: the admin listener of the real binary refuses a
// Host or a browser Origin that is not its own, whatever the token, and
// its /debug/pprof/cmdline shows no secret given on the command line.
//
// Reproduction (before), with catalogued -admin.token LITERAL
// -mail.smtp relay:25 -mail.password PW -ids.secret S … running:
//
//	curl -H 'Host: evil.example' -H "Authorization: Bearer LITERAL" http://127.0.0.1:8081/admin/keys
//
// answered 200 with every key (no Host or Origin check: a DNS-rebinding
// page holding the token could read it), and
//
//	curl -H "Authorization: Bearer LITERAL" http://127.0.0.1:8081/debug/pprof/cmdline
//
// showed LITERAL, PW and S as they were typed.
func TestAdminHostAndCmdline(t *testing.T) {
	const (
		token    = "admin-token-literal-0123456789"
		password = "smtp-password-literal"
		idSecret = "ids-secret-literal-0123456789abcdef0123"
		auth     = "Authorization: Bearer facilitator-literal"
	)
	adminAddr := freePort(t)
	startServer(t, 0, "-admin.listen", adminAddr, "-admin.token="+token, "-mail.smtp", "127.0.0.1:1", "-mail.password", password,
		"--ids.secret", idSecret, "-x402.facilitatorAuth", auth, "-keys.bootstrap=false").logs.waitFor(t, "admin API on http://"+adminAddr, 30*time.Second)
	port := adminAddr[strings.LastIndex(adminAddr, ":")+1:]
	get := func(path string, headers ...string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+adminAddr+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		for i := 0; i < len(headers); i += 2 {
			if headers[i] == "Host" {
				req.Host = headers[i+1]
			} else {
				req.Header.Set(headers[i], headers[i+1])
			}
		}
		res, b := do(t, req)
		return res.StatusCode, string(b)
	}
	for _, h := range [][]string{
		{"Host", "evil.example"},
		{"Host", "evil.example:" + port},
		{"Host", "localhost:" + port, "Origin", "http://evil.example"},
	} {
		if code, body := get("/admin/keys", h...); code != 403 {
			t.Errorf("%v: %d, want 403: %s", h, code, body)
		}
	}
	for _, h := range [][]string{nil, {"Host", "localhost:" + port}, {"Origin", "http://127.0.0.1:3000"}} {
		if code, body := get("/admin/keys", h...); code != 200 {
			t.Errorf("%v: %d, want 200: %s", h, code, body)
		}
	}
	code, cmdline := get("/debug/pprof/cmdline")
	if code != 200 || !strings.Contains(cmdline, "-admin.token=xxxxx") || !strings.Contains(cmdline, "-mail.password\x00xxxxx") {
		t.Errorf("cmdline: %d %q", code, cmdline)
	}
	for _, secret := range []string{token, password, idSecret, "facilitator-literal"} {
		if strings.Contains(cmdline, secret) {
			t.Errorf("cmdline shows the secret %q: %q", secret, cmdline)
		}
	}
}

func TestRedactedArgs(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.String("admin.token", "", "")
	fs.String("store", "", "")
	fs.String("x402.facilitator", "", "")
	fs.String("listen", "", "")
	fs.Bool("generate", false, "")
	f := func(in, want []string) {
		t.Helper()
		args := append([]string{"catalogued"}, in...)
		if got := redactedArgs(fs, args); !slices.Equal(got[1:], want) {
			t.Errorf("redactedArgs(%q) = %q, want %q", in, got[1:], want)
		}
	}
	f([]string{"-admin.token", "s3cret-s3cret-s3cret"}, []string{"-admin.token", "xxxxx"})
	f([]string{"--admin.token=s3cret-s3cret-s3cret"}, []string{"--admin.token=xxxxx"})
	f([]string{"-admin.token=file:///etc/token"}, []string{"-admin.token=file:///etc/token"}) // a path, not the secret
	f([]string{"-admin.token="}, []string{"-admin.token="})
	f([]string{"-generate", "-admin.token", "s3cret-s3cret-s3cret", "-listen", ":8080"}, []string{"-generate", "-admin.token", "xxxxx", "-listen", ":8080"})
	f([]string{"-listen", "-admin.token"}, []string{"-listen", "-admin.token"}) // a value, not a flag
	f([]string{"-store", "redis://u:pw@10.0.0.9:6379/0"}, []string{"-store", "redis://u:xxxxx@10.0.0.9:6379/0"})
	f([]string{"-x402.facilitator=https://tok@fac.example/x"}, []string{"-x402.facilitator=https://xxxxx@fac.example/x"})
	f([]string{"-x402.facilitator", "https://u:pw@fac.example"}, []string{"-x402.facilitator", "https://u:xxxxx@fac.example"})
	f([]string{"-admin.token"}, []string{"-admin.token"})
	f([]string{"--", "-admin.token", "x"}, []string{"--", "-admin.token", "x"})
}
