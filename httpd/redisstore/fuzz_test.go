package redisstore

import (
	"strings"
	"testing"
)

// TestClientOptionHidesPassword: a -store URL that does not parse is
// reported without the URL, which may hold a password.
func TestClientOptionHidesPassword(t *testing.T) {
	for _, u := range []string{"redis://u:hunter2@h:port/0", "http://u:hunter2@h/0", "redis://u:hunter2@h:6379/x", "redis://u:hunter2@%zz/0"} {
		_, err := ClientOption(u)
		if err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ClientOption(%q): %v", u, err)
		}
	}
	if o, err := ClientOption("redis://u:hunter2@127.0.0.1:6379/3"); err != nil || o.SelectDB != 3 || o.InitAddress[0] != "127.0.0.1:6379" || o.Password != "hunter2" {
		t.Errorf("a good URL: %+v %v", o, err)
	}
}

// FuzzClientOption: any -store value is parsed into one Redis address or
// refused with an error naming the accepted forms; never a panic.
func FuzzClientOption(f *testing.F) {
	for _, s := range []string{"redis://127.0.0.1:6379/0", "rediss://u:p@h:6380/2", "redis://:secret@[::1]:6379/15", "redis://h?addr=a:1&addr=b:2",
		"unix:///tmp/redis.sock", "http://x", "", "redis://h:notaport/0", "redis://h/abc", "redis://%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, url string) {
		opt, err := ClientOption(url)
		if err != nil {
			if !strings.Contains(err.Error(), "redis://") && !strings.Contains(err.Error(), "one Redis address") {
				t.Errorf("%q: error %q does not say what is wanted", url, err)
			}
			return
		}
		if len(opt.InitAddress) != 1 || opt.InitAddress[0] == "" {
			t.Errorf("%q accepted with addresses %q", url, opt.InitAddress)
		}
	})
}

// FuzzDecodeKey: whatever a key's hash in Redis holds, it decodes to a
// key or an error; never a panic.
func FuzzDecodeKey(f *testing.F) {
	f.Add("apify", "active", "a@example.org", "2026-01-02T03:04:05Z", "2026-01-02T03:04:05.123456789Z")
	f.Add("gold", "active", "", "x", "")
	f.Fuzz(func(t *testing.T, plan, state, email, created, changed string) {
		var h [32]byte
		k, err := decodeKey(h, [6]string{plan, state, email, "", created, changed})
		if err == nil && (k.Plan.String() != plan || k.State.String() != state) {
			t.Errorf("decoded %+v from plan %q state %q", k, plan, state)
		}
	})
}
