package rollout

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

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
// the margin. An origin that holds or sends more is not serving a
// snapshot. (A variable only so that the tests can lower it.)
var maxFile int64 = loader.MaxPayload + 1<<20

// ErrTooLarge: the origin holds or sends more bytes than a snapshot can
// have (a file replaced by /dev/zero, an endless body). The same hash
// will not be smaller on the next try: the Follower gives it up until it
// is told to look again (a notification or SIGHUP) instead of downloading
// it again and again.
var ErrTooLarge = errors.New("larger than a snapshot can be")

// ErrStalled: the origin sent nothing for HTTPOptions.IdleTimeout in the
// middle of a body.
var ErrStalled = errors.New("the origin stalled")

// HTTPOptions configures the client of an HTTP origin. SetDefaults fills
// the zero durations.
type HTTPOptions struct {
	// ConnectTimeout bounds the TCP connection and, separately, the TLS
	// handshake. Default 10 s.
	ConnectTimeout time.Duration
	// HeaderTimeout bounds the wait for the response's headers once the
	// request is sent. Default 30 s.
	HeaderTimeout time.Duration
	// IdleTimeout bounds the wait for the next bytes of a body: a body
	// that stalls midway fails after it, not after the whole download's
	// deadline (Options.FetchTimeout). Default 30 s.
	IdleTimeout time.Duration
	// RedirectHosts are the hosts a redirect may lead to besides the
	// origin's own ("name" on any port, "name:port" on that one). A
	// redirect to any other host, or from https to http, is refused.
	RedirectHosts []string
	// Client, when set, is used as it is instead of a client built from
	// the fields above (only IdleTimeout applies to it).
	Client *http.Client
}

// SetDefaults fills the zero durations of o.
func (o *HTTPOptions) SetDefaults() {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	if o.HeaderTimeout <= 0 {
		o.HeaderTimeout = 30 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 30 * time.Second
	}
}

// ParseOrigin reads an origin as the -origin flags give it: an http:// or
// https:// URL (replicas GET <URL>/<hash>.snap, with a client configured
// by o), or else a directory path.
func ParseOrigin(s string, o HTTPOptions) (Origin, error) {
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
	o.SetDefaults()
	client := o.Client
	if client == nil {
		client = newClient(u, o)
	}
	return &HTTP{Base: u, Client: client, IdleTimeout: o.IdleTimeout}, nil
}

// newClient returns the client of the origin at base: http.DefaultClient
// has no timeout at all and follows redirects to any host.
func newClient(base *url.URL, o HTTPOptions) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = o.ConnectTimeout
	t.ResponseHeaderTimeout = o.HeaderTimeout
	allowed := map[string]bool{} // "name:port" as URL.Host has it, or a name as URL.Hostname has it
	for _, h := range o.RedirectHosts {
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = strings.Trim(h, "[]")
		}
		allowed[strings.ToLower(h)] = true
	}
	return &http.Client{Transport: t, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		to := req.URL
		switch {
		case len(via) >= 10:
			return errors.New("stopped after 10 redirects")
		case to.Scheme == "http" && via[len(via)-1].URL.Scheme == "https":
			return fmt.Errorf("refused a redirect from https to %s", to.Redacted())
		case strings.EqualFold(to.Host, base.Host), allowed[strings.ToLower(to.Host)], allowed[strings.ToLower(to.Hostname())]:
			return nil
		}
		return fmt.Errorf("refused a redirect to %s, another host than the origin's %s (allow it with -origin.redirectHosts)", to.Redacted(), base.Host)
	}}
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

// Fetch copies the file of hash to w. A file larger than a snapshot can
// be, or one that is not a regular file (a link to /dev/zero), is refused
// without being read; one that grows while it is read, once it passes
// that size.
func (d Dir) Fetch(ctx context.Context, hash string, w io.Writer) error {
	f, err := os.Open(filepath.Join(string(d), ObjectName(hash)))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w %s", ObjectName(hash), ErrNotInOrigin, d)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return fmt.Errorf("cannot read %s: %w", f.Name(), err)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%s): not a snapshot", f.Name(), st.Mode().Type())
	case st.Size() > maxFile:
		return fmt.Errorf("%s: %w: %d bytes, more than %d", f.Name(), ErrTooLarge, st.Size(), maxFile)
	}
	n, err := io.Copy(w, io.LimitReader(f, maxFile+1))
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", f.Name(), err)
	}
	if n > maxFile {
		return fmt.Errorf("%s: %w: more than %d bytes", f.Name(), ErrTooLarge, maxFile)
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
	// IdleTimeout, when positive, fails a body that sends nothing for so
	// long (ErrStalled).
	IdleTimeout time.Duration
}

func (h *HTTP) String() string { return h.Base.String() }

func (h *HTTP) url(hash string) string { return h.Base.String() + "/" + ObjectName(hash) }

// Fetch GETs the file of hash and copies the body to w. A body larger
// than a snapshot can be is refused (ErrTooLarge: by its Content-Length
// before it is read, else once that many bytes have come), and one that
// stalls for IdleTimeout fails (ErrStalled).
func (h *HTTP) Fetch(ctx context.Context, hash string, w io.Writer) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
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
	case res.ContentLength > maxFile:
		return fmt.Errorf("GET %s: %w: Content-Length %d, more than %d", h.url(hash), ErrTooLarge, res.ContentLength, maxFile)
	}
	var body io.Reader = res.Body
	if h.IdleTimeout > 0 {
		stalled := fmt.Errorf("%w: no data for %s", ErrStalled, h.IdleTimeout)
		idle := time.AfterFunc(h.IdleTimeout, func() { cancel(stalled) })
		defer idle.Stop()
		body = &progress{r: res.Body, idle: idle, wait: h.IdleTimeout}
	}
	n, err := io.Copy(w, io.LimitReader(body, maxFile+1))
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrStalled) {
			err = cause
		}
		return fmt.Errorf("GET %s: %w", h.url(hash), err)
	}
	if n > maxFile {
		return fmt.Errorf("GET %s: %w: more than %d bytes", h.url(hash), ErrTooLarge, maxFile)
	}
	return nil
}

// progress re-arms idle each time r returns bytes.
type progress struct {
	r    io.Reader
	idle *time.Timer
	wait time.Duration
}

func (p *progress) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.idle.Reset(p.wait)
	}
	return n, err
}

// Store checks that the origin serves the file of hash intact; it uploads
// nothing.
func (h *HTTP) Store(ctx context.Context, hash, path string) error {
	if err := fetchVerified(ctx, h, hash, io.Discard); err != nil {
		return fmt.Errorf("an HTTP origin is not uploaded to: copy %s to %s first (%w)", path, h.url(hash), err)
	}
	return nil
}
