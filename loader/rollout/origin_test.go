package rollout

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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
	o, err := ParseOrigin(srv.URL+"/", nil)
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
	ob, _ := ParseOrigin(broken.URL, nil)
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
		o, err := ParseOrigin(in, nil)
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
		o, err := ParseOrigin(s, nil)
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
