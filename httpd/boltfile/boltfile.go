// Package boltfile opens the bbolt files of the state directory
// (access.db, payments.db) so that a damaged file stops the start with a
// message naming it and what to do, never a panic and never a new, empty
// store in its place.
//
// bbolt initialises a zero-byte file as a new database, so a store whose
// content was lost (a full disk, a truncation) would silently become an
// empty one: every key gone, fresh bootstrap keys minted over it. Open
// refuses such a file: only a missing file is a new store. bbolt also
// panics on some corruptions (in Cursor.nsearch, in the freelist, in
// page-type assertions) instead of returning an error; Open opens the file
// under recover and runs bbolt's own consistency check (Tx.Check) before
// anyone reads it.
//
// The package imports the standard library and bbolt only.
package boltfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// ErrEmpty is wrapped by the error of Open for a file of zero bytes.
var ErrEmpty = errors.New("the file is empty (0 bytes)")

// ErrCorrupt is wrapped by the error of Open for a file bbolt cannot read
// or whose consistency check fails.
var ErrCorrupt = errors.New("the file is corrupt")

// Open opens the bbolt file at path with opts, as bolt.Open does, and
// reports whether it created the file. A file that exists must be a
// readable, consistent database: a zero-byte file is an error wrapping
// ErrEmpty, one that bbolt refuses, panics on or finds inconsistent an
// error wrapping ErrCorrupt; both messages name the file and what to do,
// as every error does but one: a lock held by another process past
// opts.Timeout is bbolt's own errors.ErrTimeout, for the caller to
// explain.
//
// When bbolt panics while opening, the file's descriptor and lock are
// not released (bbolt holds them in a half-built DB): the caller is
// expected to stop.
func Open(path string, opts *bolt.Options) (db *bolt.DB, created bool, err error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		created = true
	case err != nil:
		return nil, false, fmt.Errorf("cannot open %s: %w", path, err)
	case !st.Mode().IsRegular():
		return nil, false, fmt.Errorf("cannot open %s: not a regular file (%s)", path, st.Mode().Type())
	case st.Size() == 0:
		return nil, false, fmt.Errorf("cannot open %s: %w. A store that existed is never replaced by an empty one: "+
			"restore the file from a backup; only if this state directory has never served (a first start that failed), remove the file to start with an empty store", path, ErrEmpty)
	}
	db, err = open(path, opts)
	var errno syscall.Errno
	switch {
	case err == nil:
	case errors.Is(err, bolterrors.ErrTimeout):
		return nil, false, err
	case created:
		// A new file that could not be initialised (a full disk) held
		// nothing: remove it, or the next start would find it empty.
		os.Remove(path)
		return nil, false, fmt.Errorf("cannot create %s: %w", path, err)
	case errors.As(err, &errno):
		return nil, false, fmt.Errorf("cannot open %s: %w", path, err)
	default: // bbolt refused or panicked on what it read
		return nil, false, corrupt(path, err)
	}
	if err := check(db); err != nil {
		db.Close()
		return nil, false, corrupt(path, err)
	}
	return db, created, nil
}

// corrupt explains err, a corruption of the file at path.
func corrupt(path string, err error) error {
	if !errors.Is(err, ErrCorrupt) {
		err = fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return fmt.Errorf("cannot open %s: %w. Stop every process using it, then restore the file from a backup; "+
		"or move it aside (keep it: bbolt's own tool, go run go.etcd.io/bbolt/cmd/bbolt@v1.5.0 check FILE, may tell more) to start with an empty store, losing what it held", path, err)
}

// open is bolt.Open under guard.
func open(path string, opts *bolt.Options) (db *bolt.DB, err error) {
	err = guard(func() (err error) {
		db, err = bolt.Open(path, 0o600, opts)
		return err
	})
	return db, err
}

// guard runs f, turning its panics, and the memory faults of reading a
// corrupt file through bbolt's memory map, into errors. bbolt reads the
// file through a memory map: a corrupt offset or count makes it read past
// the map, a fault that kills the process (the runtime's "unexpected
// fault address") unless the goroutine asked for a panic instead
// (debug.SetPanicOnFault), which is recovered here.
func guard(f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bbolt: %v", r)
		}
	}()
	return f()
}

// check reads every key and value of every bucket on this goroutine,
// under guard, then runs bbolt's consistency check (Tx.Check). The check
// runs on a goroutine of bbolt's own, where a fault cannot be recovered:
// the read first touches what the check reads (every page reachable from
// the buckets, every key), so a fault happens here, where it is an error.
func check(db *bolt.DB) error {
	return db.View(func(tx *bolt.Tx) error {
		var sum byte
		if err := guard(func() error {
			return tx.ForEach(func(_ []byte, b *bolt.Bucket) error { return touch(b, &sum) })
		}); err != nil {
			return fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		runtime.KeepAlive(sum) // the reads are the point: keep them
		var errs []error
		for e := range tx.Check() { // it recovers its own panics, and reports them
			if len(errs) < 3 { // the first few say enough
				errs = append(errs, e)
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("%w: %w", ErrCorrupt, errors.Join(errs...))
		}
		return nil
	})
}

// touch reads the first and last byte of every key and value in b and
// the buckets nested in it, into sum.
func touch(b *bolt.Bucket, sum *byte) error {
	return b.ForEach(func(k, v []byte) error {
		for _, s := range [][]byte{k, v} {
			if len(s) > 0 {
				*sum ^= s[0] ^ s[len(s)-1]
			}
		}
		if v == nil { // a nested bucket
			if nested := b.Bucket(k); nested != nil {
				return touch(nested, sum)
			}
		}
		return nil
	})
}
