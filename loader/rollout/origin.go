package rollout

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/vspec/catalogue/loader"
)

// Origin holds snapshot files under their content hash, for replicas to
// fetch.
type Origin interface {
	// Fetch writes the file stored under hash to w, unverified (see
	// fetchVerified); ErrNotInOrigin when there is none.
	Fetch(ctx context.Context, hash string, w io.Writer) error
	// Store makes the file at path, whose content hash is hash, available
	// under it.
	Store(ctx context.Context, hash, path string) error
	// String names the origin in messages.
	String() string
}

// maxFile bounds a fetched file: a snapshot's payload is at most
// loader.MaxPayload, and zstd's framing and the header add far less than
// the margin. A server that sends more is not serving a snapshot.
const maxFile = loader.MaxPayload + 1<<20

// ParseOrigin reads an origin as the -origin flags give it: an http:// or
// https:// URL (replicas GET <URL>/<hash>.snap), or else a directory path.
func ParseOrigin(s string, client *http.Client) (Origin, error) {
	if s == "" {
		return nil, errors.New("empty: want a directory or an http(s) URL")
	}
	if strings.ContainsRune(s, 0) {
		return nil, errors.New("a NUL byte in the origin")
	}
	scheme, _, isURL := strings.Cut(s, "://")
	if !isURL {
		return Dir(filepath.Clean(s)), nil
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, err
	case scheme != "http" && scheme != "https":
		return nil, fmt.Errorf("scheme %q: want a directory or an http:// or https:// URL", scheme)
	case u.Host == "":
		return nil, errors.New("no host in the URL")
	case u.RawQuery != "" || u.Fragment != "":
		return nil, errors.New("a query or fragment in the URL: want the base URL the files are under, like https://cdn.example.com/snapshots")
	case u.User != nil:
		return nil, errors.New("credentials in the URL: the origin is read without authentication")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	if client == nil {
		client = http.DefaultClient
	}
	return &HTTP{Base: u, Client: client}, nil
}

// fetchVerified fetches hash from o into w and returns ErrHashMismatch
// when the bytes are not the file hash names. w has then received them
// anyway: the caller discards what it wrote.
func fetchVerified(ctx context.Context, o Origin, hash string, w io.Writer) error {
	h := sha256.New()
	if err := o.Fetch(ctx, hash, io.MultiWriter(w, h)); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != hash {
		return fmt.Errorf("%w: %s in %s has SHA-256 %s", ErrHashMismatch, ObjectName(hash), o, got)
	}
	return nil
}

// Dir is an origin in a directory, local or mounted (NFS, a synced
// volume): the files are <dir>/<hash>.snap.
type Dir string

func (d Dir) String() string { return string(d) }

// Fetch copies the file of hash to w.
func (d Dir) Fetch(ctx context.Context, hash string, w io.Writer) error {
	f, err := os.Open(filepath.Join(string(d), ObjectName(hash)))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w %s", ObjectName(hash), ErrNotInOrigin, d)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("cannot read %s: %w", f.Name(), err)
	}
	return nil
}

// Store copies the file at path into the directory atomically: into a
// temporary file beside the target, synced, then renamed, so a replica
// never fetches half a file. A file already there under hash is kept when
// it is intact.
func (d Dir) Store(ctx context.Context, hash, path string) error {
	target := filepath.Join(string(d), ObjectName(hash))
	if got, err := FileHash(target); err == nil && got == hash {
		return nil
	}
	if err := os.MkdirAll(string(d), 0o755); err != nil {
		return fmt.Errorf("cannot create the origin directory: %w", err)
	}
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(string(d), ".publish-*")
	if err != nil {
		return fmt.Errorf("cannot write to the origin: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, h), src)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		return fmt.Errorf("cannot copy %s to the origin: %w", path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != hash {
		return fmt.Errorf("%s changed while it was published (SHA-256 %s, was %s)", path, got, hash)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("cannot write to the origin: %w", err)
	}
	return nil
}

// HTTP is an origin served over HTTP(S) by any static file server, object
// store or CDN: replicas GET <Base>/<hash>.snap. It does not upload:
// put the file there with the store's own tool (aws s3 cp, rsync,
// gsutil), named by its content hash, then publish; Store checks that the
// file is served, whole and intact, before the fleet is pointed at it.
type HTTP struct {
	Base   *url.URL
	Client *http.Client
}

func (h *HTTP) String() string { return h.Base.String() }

func (h *HTTP) url(hash string) string { return h.Base.String() + "/" + ObjectName(hash) }

// Fetch GETs the file of hash and copies the body to w.
func (h *HTTP) Fetch(ctx context.Context, hash string, w io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url(hash), nil)
	if err != nil {
		return err
	}
	res, err := h.Client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	switch {
	case res.StatusCode == http.StatusNotFound:
		return fmt.Errorf("GET %s: 404, %w", h.url(hash), ErrNotInOrigin)
	case res.StatusCode != http.StatusOK:
		return fmt.Errorf("GET %s: %s", h.url(hash), res.Status)
	}
	n, err := io.Copy(w, io.LimitReader(res.Body, maxFile+1))
	if err != nil {
		return fmt.Errorf("GET %s: %w", h.url(hash), err)
	}
	if n > maxFile {
		return fmt.Errorf("GET %s: more than %d bytes, not a snapshot", h.url(hash), int64(maxFile))
	}
	return nil
}

// Store checks that the origin serves the file of hash intact; it uploads
// nothing.
func (h *HTTP) Store(ctx context.Context, hash, path string) error {
	if err := fetchVerified(ctx, h, hash, io.Discard); err != nil {
		return fmt.Errorf("an HTTP origin is not uploaded to: copy %s to %s first (%w)", path, h.url(hash), err)
	}
	return nil
}
