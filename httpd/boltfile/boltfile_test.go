package boltfile

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

var opts = &bolt.Options{Timeout: 100 * time.Millisecond}

// store writes a bbolt file of n records at a new path and returns it.
func store(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.db")
	db, created, err := Open(path, opts)
	if err != nil || !created {
		t.Fatalf("a new file: created %v, %v", created, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		for i := range n {
			if err == nil {
				err = b.Put(fmt.Appendf(nil, "key %05d", i), []byte(strings.Repeat("v", 100)))
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOpen: only a missing file is new; an existing file opens as it is.
func TestOpen(t *testing.T) {
	path := store(t, 200)
	db, created, err := Open(path, opts)
	if err != nil || created {
		t.Fatalf("an existing file: created %v, %v", created, err)
	}
	defer db.Close()
	n := 0
	db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("b")).ForEach(func(k, v []byte) error { n++; return nil })
	})
	if n != 200 {
		t.Errorf("%d records, want 200", n)
	}
	// Held by another process (here, another DB): bbolt's timeout, for
	// the caller to explain.
	if _, _, err := Open(path, opts); err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Errorf("a locked file: %v", err)
	}
}

// TestDamagedFileRefused: a zero-byte file, a file bbolt panics on and a
// file that is not a database are each refused with an error naming the
// file and what to do, never a panic and never a new store in their
// place.
//
// Reproduction (before boltfile, bolt.Open as access.Open called it):
// truncate access.db to 0 bytes and start: bbolt initialises it as a new,
// empty store (every key gone, new bootstrap keys); or zero the 16-byte
// header of any page after the two meta pages (offset 8192 with 4 KiB
// pages) and start: panic "assertion failed: Page expected to be: 2, but
// self identifies as 0", or write 0xffff into a page's count (offset +10):
// panic "slice bounds out of range" in Cursor.nsearch.
func TestDamagedFileRefused(t *testing.T) {
	f := func(name string, damage func(path string), want error, wantText ...string) {
		t.Helper()
		path := store(t, 200)
		damage(path)
		db, created, err := Open(path, opts) // a panic fails the test
		if err == nil {
			db.Close()
			t.Errorf("%s: opened (created %v)", name, created)
			return
		}
		if !errors.Is(err, want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want %v naming %s", name, err, want, path)
		}
		for _, w := range wantText {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v lacks %q", name, err, w)
			}
		}
		if st, err := os.Stat(path); err != nil || st.Size() == 0 && want != ErrEmpty {
			t.Errorf("%s: the file was changed: %v %v", name, st, err)
		}
	}
	writeAt := func(b []byte, off int64) func(string) {
		return func(path string) {
			file, err := os.OpenFile(path, os.O_RDWR, 0)
			if err == nil {
				_, err = file.WriteAt(b, off)
				file.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	truncate := func(size int64) func(string) {
		return func(path string) {
			if err := os.Truncate(path, size); err != nil {
				t.Fatal(err)
			}
		}
	}
	page := int64(os.Getpagesize())
	f("zero bytes", truncate(0), ErrEmpty, "restore the file from a backup", "never served")
	used := usedPages(t, store(t, 200))
	if len(used) < 3 {
		t.Fatalf("pages in use: %v", used)
	}
	for id, typ := range used {
		f(fmt.Sprintf("%s page %d header zeroed", typ, id), writeAt(make([]byte, 16), id*page), ErrCorrupt, "restore the file from a backup", "move it aside")
		f(fmt.Sprintf("%s page %d count", typ, id), writeAt([]byte{0xff, 0xff}, id*page+10), ErrCorrupt)
	}
	f("meta pages zeroed", writeAt(make([]byte, 2*page), 0), ErrCorrupt)
	f("truncated to one page", truncate(page), ErrCorrupt)
	f("not a database", func(path string) { os.WriteFile(path, []byte(strings.Repeat("not bbolt ", 1000)), 0o600) }, ErrCorrupt)
}

// TestScribbledPages: random bytes over the pages in use, 40 times: Open
// returns a store or an error, and the process lives. bbolt reads the
// file through a memory map, and a corrupt offset made it read past the
// map: "unexpected fault address", a crash no recover catches, in the
// goroutine of Tx.Check when nothing had read those pages before it.
func TestScribbledPages(t *testing.T) {
	path := store(t, 200)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for id := range usedPages(t, path) {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	page := int64(os.Getpagesize())
	rng := rand.New(rand.NewPCG(35, 7))
	refused := 0
	for range 40 {
		b := slices.Clone(good)
		off := ids[rng.IntN(len(ids))]*page + rng.Int64N(page-64)
		for i := range 64 {
			b[off+int64(i)] = byte(rng.Uint32())
		}
		os.WriteFile(path, b, 0o600)
		db, _, err := Open(path, opts)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("bytes at %d: %v, want ErrCorrupt", off, err)
			}
			refused++
			continue
		}
		db.Close()
	}
	t.Logf("%d of 40 scribbled files refused as corrupt", refused)
}

// TestNotAFile: a directory where the file should be is an error, not a
// new store.
func TestNotAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	os.Mkdir(path, 0o700)
	if _, _, err := Open(path, opts); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
}

// usedPages returns the pages after the meta pages that the file at path
// uses (branch, leaf, freelist) with their types; store writes the same
// layout every time.
func usedPages(t *testing.T, path string) map[int64]string {
	t.Helper()
	db, err := bolt.Open(path, 0o600, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	used := map[int64]string{}
	db.View(func(tx *bolt.Tx) error {
		for id := 2; ; id++ {
			p, err := tx.Page(id)
			if p == nil || err != nil {
				return err
			}
			if p.Type != "free" {
				used[int64(id)] = p.Type
			}
		}
	})
	return used
}
