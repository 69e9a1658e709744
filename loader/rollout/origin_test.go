package rollout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// TestHTTPOrigin: replicas fetch from any static file server; publishing
// to it uploads nothing and checks the file is there, whole and intact.
func TestHTTPOrigin(t *testing.T) {
	a, _, hashA, _ := snapshots(t)
	served := t.TempDir()
	srv := httptest.NewServer(http.FileServer(http.Dir(served)))
	defer srv.Close()
	o, err := ParseOrigin(srv.URL+"/", HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := newFakePointer()
	if _, err := Publish(ctx, p, o, a); !errors.Is(err, ErrNotInOrigin) || !strings.Contains(err.Error(), "copy "+a) {
		t.Errorf("publishing a file the origin does not serve: %v", err)
	}
	if h, _ := p.Current(ctx); h != "" {
		t.Fatalf("the pointer moved to %s", h)
	}
	good, _ := os.ReadFile(a)
	target := filepath.Join(served, ObjectName(hashA))
	os.WriteFile(target, good[:len(good)-1], 0o644) // a truncated upload
	if _, err := Publish(ctx, p, o, a); !errors.Is(err, ErrHashMismatch) {
		t.Errorf("publishing a file the origin serves truncated: %v", err)
	}
	os.WriteFile(target, good, 0o644)
	if r, err := Publish(ctx, p, o, a); err != nil || r.Hash != hashA {
		t.Fatalf("Publish: %+v %v", r, err)
	}
	var buf bytes.Buffer
	if err := fetchVerified(ctx, o, hashA, &buf); err != nil || !bytes.Equal(buf.Bytes(), good) {
		t.Errorf("fetch: %v, %d bytes of %d", err, buf.Len(), len(good))
	}
	// A replica follows from it.
	f, err := New(Options{Pointer: p, Origin: o, Dir: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if c, err := f.First(fctx); err != nil || c.Meta.ContentHash != hashA {
		t.Fatalf("First from an HTTP origin: %v", err)
	}
	// A rollback to a hash the origin lacks is refused.
	missing := strings.Repeat("ab", 32)
	if _, err := Repoint(ctx, p, o, missing); !errors.Is(err, ErrNotInOrigin) {
		t.Errorf("Repoint to a missing file: %v", err)
	}
	if h, _ := p.Current(ctx); h != hashA {
		t.Errorf("the pointer is %s after a refused rollback", h)
	}
	// A server error is an error, not a file.
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", 500) }))
	defer broken.Close()
	ob, _ := ParseOrigin(broken.URL, HTTPOptions{})
	if err := ob.Fetch(ctx, hashA, &buf); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("fetch from a failing server: %v", err)
	}
}

// TestPublishRefusesNonCatalogue: a file that does not load is neither
// stored nor pointed at.
func TestPublishRefusesNonCatalogue(t *testing.T) {
	a, _, _, _ := snapshots(t)
	good, _ := os.ReadFile(a)
	bad := filepath.Join(t.TempDir(), "bad.snap")
	good[100] ^= 0x55
	os.WriteFile(bad, good, 0o644)
	origin := Dir(t.TempDir())
	p := newFakePointer()
	if _, err := Publish(context.Background(), p, origin, bad); err == nil || !strings.Contains(err.Error(), "not a catalogue") {
		t.Errorf("Publish of a corrupt file: %v", err)
	}
	if files, _ := os.ReadDir(string(origin)); len(files) != 0 {
		t.Errorf("the origin holds %d files", len(files))
	}
	if h, _ := p.Current(context.Background()); h != "" {
		t.Errorf("the pointer moved to %s", h)
	}
	// A store that fails refuses the publication, and says so.
	p.fail(errDown)
	if _, err := Publish(context.Background(), p, origin, a); !errors.Is(err, errDown) {
		t.Errorf("Publish with the store down: %v", err)
	}
}

// TestDirStoreAtomic: the file appears whole under its hash, with no
// temporary file left, and publishing it twice keeps it.
func TestDirStoreAtomic(t *testing.T) {
	a, _, hashA, _ := snapshots(t)
	origin := Dir(filepath.Join(t.TempDir(), "origin")) // created on first use
	ctx := context.Background()
	for range 2 {
		if err := origin.Store(ctx, hashA, a); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := os.ReadDir(string(origin))
	if len(files) != 1 || files[0].Name() != ObjectName(hashA) {
		t.Fatalf("origin holds %v", files)
	}
	if h := mustHash(t, filepath.Join(string(origin), ObjectName(hashA))); h != hashA {
		t.Errorf("stored file hashes to %s", h)
	}
	// Stored under the wrong hash (the file changed since it was hashed):
	// refused, nothing left behind.
	wrong := strings.Repeat("0", 64)
	if err := origin.Store(ctx, wrong, a); err == nil {
		t.Error("a file stored under a hash that is not its own")
	}
	if files, _ := os.ReadDir(string(origin)); len(files) != 1 {
		t.Errorf("origin holds %d files after a refused store", len(files))
	}
}

func TestParseOrigin(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		o, err := ParseOrigin(in, HTTPOptions{})
		got := ""
		if err != nil {
			got = "error"
		} else {
			got = o.String()
		}
		if got != want {
			t.Errorf("ParseOrigin(%q) = %q, want %q (%v)", in, got, want, err)
		}
	}
	f("/srv/snapshots", "/srv/snapshots")
	f("/srv/snapshots/", "/srv/snapshots")
	f("snapshots", "snapshots")
	f("https://cdn.example.com/snap/", "https://cdn.example.com/snap")
	f("http://127.0.0.1:9000", "http://127.0.0.1:9000")
	f("", "error")
	f("s3://bucket/snap", "error")
	f("ftp://example.com/x", "error")
	f("https://", "error")
	f("https://cdn.example.com/snap?sig=1", "error")
	f("https://user:pw@cdn.example.com/snap", "error")
	f("/srv/a\x00b", "error")
}

func TestParseHash(t *testing.T) {
	h := strings.Repeat("aB", 32)
	if got, err := ParseHash(h); err != nil || got != strings.ToLower(h) {
		t.Errorf("ParseHash(%q) = %q, %v", h, got, err)
	}
	for _, bad := range []string{"", "abc", strings.Repeat("g", 64), strings.Repeat("a", 63), strings.Repeat("a", 65), "../" + strings.Repeat("a", 61)} {
		if _, err := ParseHash(bad); err == nil {
			t.Errorf("ParseHash(%q) accepted", bad)
		}
	}
}

// FuzzParseOrigin: any text gives an origin or an error, never a panic; a
// URL origin is http(s) with a host, a directory origin names no URL.
func FuzzParseOrigin(f *testing.F) {
	for _, s := range []string{"/srv/snapshots", "https://cdn.example.com/snap/", "http://[::1]:80/a", "s3://x", "", "http://", "a://b://c", "https://h/%zz", "./rel/../dir"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOrigin(s, HTTPOptions{})
		if err != nil {
			if o != nil {
				t.Fatalf("an origin and an error for %q", s)
			}
			return
		}
		switch o := o.(type) {
		case *HTTP:
			if (o.Base.Scheme != "http" && o.Base.Scheme != "https") || o.Base.Host == "" || o.Base.User != nil {
				t.Fatalf("%q gave the origin %s", s, o)
			}
		case Dir:
			if strings.Contains(s, "://") || o == "" {
				t.Fatalf("%q gave the directory %q", s, o)
			}
		default:
			t.Fatalf("%q gave an origin of type %T", s, o)
		}
	})
}

// FuzzParseHash: what it accepts is 64 lower-case hex digits, usable as a
// file name.
func FuzzParseHash(f *testing.F) {
	for _, s := range []string{strings.Repeat("a", 64), strings.Repeat("F", 64), "", "../x", strings.Repeat("é", 32)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHash(s)
		if err != nil {
			if !utf8.ValidString(err.Error()) && utf8.ValidString(s) {
				t.Fatalf("error message for %q is not UTF-8", s)
			}
			return
		}
		if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" || !strings.EqualFold(h, s) {
			t.Fatalf("ParseHash(%q) = %q", s, h)
		}
	})
}

// TestOriginTimeouts: every wait on an HTTP origin is bounded: the
// connection, the TLS handshake, the response's headers, and each stretch
// of a body. A body that stalls midway fails after IdleTimeout, not after
// the whole download's deadline (10 min in a replica; 10 s here, the
// test's bound).
//
// Reproduction (before): ParseOrigin(url, nil) took http.DefaultClient,
// which has no timeout; with an origin that sent its headers and then
// nothing, a replica's fetch waited for FetchTimeout, 10 minutes (28 s
// observed before the test gave up), and so did the connect to a host
// that drops SYNs.
func TestOriginTimeouts(t *testing.T) {
	const short = 200 * time.Millisecond
	o := HTTPOptions{ConnectTimeout: short, HeaderTimeout: short, IdleTimeout: short}
	hash := strings.Repeat("ab", 32)
	f := func(name, base string, want ...string) {
		t.Helper()
		origin, err := ParseOrigin(base, o)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		err = origin.Fetch(ctx, hash, io.Discard)
		if took := time.Since(start); err == nil || took > 3*time.Second {
			t.Errorf("%s: %v after %s, want an error within 3 s", name, err, took.Round(time.Millisecond))
			return
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v lacks %q", name, err, w)
			}
		}
	}
	f("connect to a listener whose queue is full", "http://"+fullBacklog(t), "i/o timeout")
	f("TLS handshake with a peer that says nothing", "https://"+silent(t), "TLS handshake timeout")
	f("response headers that never come", "http://"+silent(t), "timeout awaiting response headers")

	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(1<<20))
		w.Write(make([]byte, 64<<10))
		w.(http.Flusher).Flush()
		select { // then nothing
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	f("a body that stalls midway", srv.URL, "the origin stalled: no data for 200ms")
}

// fullBacklog returns the address of a listener on loopback that accepts
// nobody and whose queue of pending connections is full, so a connect to
// it waits: Linux drops the SYN, as a firewall or a dead host would.
func fullBacklog(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(sa.(*syscall.SockaddrInet4).Port)
	c, err := net.DialTimeout("tcp", addr, time.Second) // fills the queue of one
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return addr
}

// silent returns the address of a listener on loopback that accepts
// connections, reads what they send and never answers.
func silent(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			go io.Copy(io.Discard, c)
		}
	}()
	return ln.Addr().String()
}

// TestOriginRedirects: an HTTP origin's redirects are followed within its
// host only, unless the other host is allowed (-origin.redirectHosts).
//
// Reproduction (before): an origin answering 302 to another host had the
// replica fetch from there (http.DefaultClient follows any redirect).
func TestOriginRedirects(t *testing.T) {
	a, _, hashA, _ := snapshots(t)
	files := t.TempDir()
	good, _ := os.ReadFile(a)
	os.WriteFile(filepath.Join(files, ObjectName(hashA)), good, 0o644)
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		http.ServeFile(w, r, filepath.Join(files, path.Base(r.URL.Path)))
	}))
	defer other.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Base(r.URL.Path)
		switch path.Dir(r.URL.Path) {
		case "/moved": // within the origin's host
			http.Redirect(w, r, "/here/"+name, http.StatusFound)
		case "/here":
			http.ServeFile(w, r, filepath.Join(files, name))
		default: // to another host (same address, another port)
			http.Redirect(w, r, other.URL+"/"+name, http.StatusFound)
		}
	}))
	defer origin.Close()
	f := func(base string, o HTTPOptions) error {
		t.Helper()
		oo, err := ParseOrigin(base, o)
		if err != nil {
			t.Fatal(err)
		}
		return fetchVerified(context.Background(), oo, hashA, io.Discard)
	}
	if err := f(origin.URL+"/moved", HTTPOptions{}); err != nil {
		t.Errorf("a redirect within the origin's host: %v", err)
	}
	otherHost := strings.TrimPrefix(other.URL, "http://")
	if err := f(origin.URL+"/away", HTTPOptions{}); err == nil || !strings.Contains(err.Error(), "another host than the origin's") || !strings.Contains(err.Error(), "-origin.redirectHosts") {
		t.Errorf("a redirect to %s: %v, want it refused", otherHost, err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the other host was asked %d times", n)
	}
	for _, allowed := range []string{otherHost, "127.0.0.1", "LOCALHOST", "[127.0.0.1]"} {
		err := f(origin.URL+"/away", HTTPOptions{RedirectHosts: []string{allowed}})
		if want := allowed != "LOCALHOST"; (err == nil) != want {
			t.Errorf("a redirect to %s with -origin.redirectHosts %s: %v", otherHost, allowed, err)
		}
	}
}

// TestDirOriginBounded: a directory origin bounds what it reads as the
// HTTP origin does.
//
// Reproduction (before): ln -s /dev/zero <origin>/<hash>.snap, then point
// the fleet at <hash>: each replica wrote 3 GiB into -rollout.dir until
// the disk was full (ENOSPC), and again at every retry.
func TestDirOriginBounded(t *testing.T) {
	dir := t.TempDir()
	hash := strings.Repeat("cd", 32)
	target := filepath.Join(dir, ObjectName(hash))
	if err := os.Symlink("/dev/zero", target); err != nil {
		t.Fatal(err)
	}
	w := &capped{max: 64 << 20} // past 64 MiB the write fails: the test's bound
	err := Dir(dir).Fetch(context.Background(), hash, w)
	if err == nil || !strings.Contains(err.Error(), "not a regular file") || w.n > 0 {
		t.Errorf("a link to /dev/zero: %v, %d bytes read", err, w.n)
	}
	// A (sparse) file one byte over the bound is refused unread.
	os.Remove(target)
	file, err := os.Create(target)
	if err == nil {
		err = file.Truncate(maxFile + 1)
		file.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	w.n = 0
	if err := Dir(dir).Fetch(context.Background(), hash, w); !errors.Is(err, ErrTooLarge) || w.n > 0 {
		t.Errorf("a file of %d bytes: %v, %d bytes read", maxFile+1, err, w.n)
	}
}

// capped is a writer that fails past max bytes.
type capped struct{ n, max int64 }

func (c *capped) Write(b []byte) (int, error) {
	c.n += int64(len(b))
	if c.n > c.max {
		return 0, fmt.Errorf("more than %d bytes written", c.max)
	}
	return len(b), nil
}
