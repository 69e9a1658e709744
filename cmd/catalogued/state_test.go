package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDamagedStateRefused: a state directory whose access.db is empty,
// corrupt or lost, or whose admin.token holds no token, stops the start with a
// message naming the file and what to do: no panic, no new key store (and
// no bootstrap keys) over one that existed, no admin API nobody can use.
//
// Reproduction (before), each on a state directory a first start made:
//   - truncate -s0 state/access.db, start: the old keys all answered 401
//     and two new bootstrap keys were printed;
//   - zero access.db after its two 4 KiB meta pages, start: "panic:
//     invalid freelist page: 0, page type is unknown<00>" in bolt.Open
//     (other damage panics in Cursor.nsearch, access.go:151, or in a page
//     assertion: httpd/boltfile's tests);
//   - rm state/access.db, start: a new empty store, two new bootstrap
//     keys, the old keys all 401 (the token secret and payments.db beside
//     it showed that the directory had served);
//   - : > state/admin.token, start: served, with every admin request 401
//     and no word why.
func TestDamagedStateRefused(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	start := func() *server {
		t.Helper()
		return spawnServer(t, 0, "-state", state, "-admin.listen", freePort(t))
	}
	// A first start makes the state: keys, admin token.
	s := start()
	s.logs.waitFor(t, "admin API on http://", 30*time.Second)
	s.stdout.waitFor(t, "vsc_apify_", 10*time.Second)
	s.cmd.Process.Signal(syscall.SIGTERM)
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("the first start's stop: %v\n%s", err, s.logs.text())
	}
	db := filepath.Join(state, "access.db")
	good, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	refused := func(name string, want ...string) {
		t.Helper()
		s := start()
		logs, printed := s.logs, s.stdout
		deadline := time.After(30 * time.Second)
	wait:
		for {
			select {
			case <-logs.eof:
				// The process has ended. Its pipes are read to their end
				// before Wait, which closes them (reading a line after Wait
				// lost the last lines on a busy machine).
				<-printed.eof
				if err := s.cmd.Wait(); err == nil {
					t.Errorf("%s: the start succeeded", name)
				}
				break wait
			case <-time.After(20 * time.Millisecond):
				if strings.Contains(logs.text(), "serving http://") {
					t.Fatalf("%s: the server started:\n%s\n%s", name, logs.text(), printed.text())
				}
			case <-deadline:
				t.Fatalf("%s: still running after 30 s:\n%s", name, logs.text())
			}
		}
		out := logs.text()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the log lacks %q:\n%s", name, w, out)
			}
		}
		for _, bad := range []string{"panic", "goroutine ", "serving http://"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: the log shows %q:\n%s", name, bad, out)
			}
		}
		if p := printed.text(); strings.Contains(p, "vsc_") {
			t.Errorf("%s: keys were minted:\n%s", name, p)
		}
	}

	if err := os.Truncate(db, 0); err != nil {
		t.Fatal(err)
	}
	refused("access.db of 0 bytes", db, "empty (0 bytes)", "restore the file from a backup")
	if st, _ := os.Stat(db); st.Size() != 0 {
		t.Errorf("the empty access.db was written to: %d bytes", st.Size())
	}

	page := os.Getpagesize()
	corrupt := append(append([]byte(nil), good[:2*page]...), make([]byte, len(good)-2*page)...)
	if err := os.WriteFile(db, corrupt, 0o600); err != nil {
		t.Fatal(err)
	}
	refused("corrupt access.db", db, "is corrupt", "restore the file from a backup")

	if err := os.Remove(db); err != nil {
		t.Fatal(err)
	}
	refused("access.db missing", db+" is missing, but "+filepath.Join(state, "token.secret")+" is there", "catalogue keys list -state "+state)
	if _, err := os.Stat(db); err == nil {
		t.Error("a new access.db was created in place of the lost one")
	}

	if err := os.WriteFile(db, good, 0o600); err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(state, "admin.token")
	if err := os.WriteFile(token, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	refused("empty admin.token", token, "Remove the file to have a new token created")
}
