// Package admin is the operator's API of a running server, on its own
// loopback listener and behind a bearer token: create, list, revoke and
// activate API keys, reload the snapshot, the metrics for Prometheus
// (GET /metrics) and the Go profiler (/debug/pprof/). It is the running
// twin of the "catalogue keys" commands, which work on the state directory
// while the server is stopped (the key store allows one process at a time).
//
// Every request is checked first for a Host and Origin of this server
// (httpd/hostguard: DNS rebinding), then for the token. The profiler's
// cmdline shows the command line it is given, with secrets redacted.
//
// It is cold-path code on net/http and encoding/json. It imports
// httpd/access, httpd/hostguard and httpd/secret; nothing imports it but
// cmd.
package admin

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/hostguard"
	"github.com/vspec/catalogue/httpd/secret"
)

// Handler serves the admin API.
type Handler struct {
	Keys   access.Backend
	Token  []byte                              // required bearer token
	Reload func() (identity string, err error) // nil disables POST /admin/reload
	// Metrics writes the metrics in the Prometheus text format for
	// GET /metrics; nil disables it.
	Metrics func(io.Writer)
	// AllowDeprecated lets POST /admin/keys create keys of the deprecated
	// free plan (to migrate a key granted by hand); otherwise it refuses.
	AllowDeprecated bool
	// Guard refuses a request whose Host or Origin is not this server's
	// with 403, before the token is looked at (DNS rebinding: a page in
	// the operator's browser reaching the loopback listener). Nil allows
	// the loopback names only (hostguard.LoopbackHosts).
	Guard *hostguard.Guard
	// Cmdline is what GET /debug/pprof/cmdline shows: the command line with
	// the values of secret flags redacted. Nil shows the program's name
	// only (net/http/pprof would show every literal secret).
	Cmdline []string
}

// loopbackGuard is the guard of a Handler without one.
var loopbackGuard = hostguard.New(hostguard.LoopbackHosts, hostguard.Names(hostguard.LoopbackHosts))

// KeyView is a key as the admin API shows it: its hash and its stored
// record, never the key itself, except once in the response that creates
// it.
type KeyView struct {
	APIKey string `json:"api_key,omitempty"`
	Hash   string `json:"hash"`
	access.Record
}

// View returns the admin view of a key.
func View(k *access.Key) KeyView {
	return KeyView{Hash: k.Hash.String(), Record: k.Record()}
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	guard := h.Guard
	if guard == nil {
		guard = loopbackGuard
	}
	if refused := guard.Check(r); refused != nil {
		problem(w, http.StatusForbidden, refused.Error()+" The admin API answers to the hosts of -admin.allowedHosts.")
		return
	}
	auth := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(tok), h.Token) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="catalogue-admin"`)
		problem(w, http.StatusUnauthorized, "The admin token is missing or wrong.")
		return
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/metrics" && r.Method == http.MethodGet && h.Metrics != nil:
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		h.Metrics(w)
	case strings.HasPrefix(r.URL.Path, "/debug/pprof/"):
		h.profile(w, r)
	case path == "/admin/keys" && r.Method == http.MethodGet:
		keys, err := h.Keys.List()
		if err != nil {
			problem(w, http.StatusServiceUnavailable, "The keys cannot be listed: "+err.Error())
			return
		}
		var out []KeyView
		for _, k := range keys {
			out = append(out, View(k))
		}
		reply(w, http.StatusOK, map[string]any{"data": out})
	case path == "/admin/keys" && r.Method == http.MethodPost:
		var req struct {
			Plan  string `json:"plan"`
			State string `json:"state"`
			Email string `json:"email"`
			Note  string `json:"note"`
		}
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			problem(w, http.StatusBadRequest, "The body must be a JSON object with plan, and optionally state, email and note: "+err.Error())
			return
		}
		plan, ok := access.ParsePlan(req.Plan)
		if !ok {
			problem(w, http.StatusBadRequest, "plan must be demo, apify or free")
			return
		}
		if plan == access.PlanFree && !h.AllowDeprecated {
			problem(w, http.StatusUnprocessableEntity, "The free plan is deprecated and no longer issued; its keys stop working at their Sunset date. "+
				"To migrate a key granted by hand, start the server with -admin.allowDeprecated.")
			return
		}
		state := access.StateActive
		switch req.State {
		case "", "active":
		case "not_yet_active":
			state = access.StatePending
		default:
			problem(w, http.StatusBadRequest, "state must be active or not_yet_active")
			return
		}
		text, k, err := h.Keys.Create(plan, state, req.Email, req.Note)
		if err != nil {
			problem(w, http.StatusServiceUnavailable, "The key could not be stored: "+err.Error())
			return
		}
		v := View(k)
		v.APIKey = text
		reply(w, http.StatusCreated, map[string]any{"data": v})
	case strings.HasPrefix(path, "/admin/keys/") && r.Method == http.MethodPost:
		rest := strings.TrimPrefix(path, "/admin/keys/")
		ref, action, _ := strings.Cut(rest, "/")
		var state access.State
		switch action {
		case "revoke":
			state = access.StateRevoked
		case "activate":
			state = access.StateActive
		default:
			problem(w, http.StatusNotFound, "No admin route "+r.URL.Path)
			return
		}
		k, err := h.Keys.SetState(ref, state)
		if errors.Is(err, access.ErrNotFound) {
			problem(w, http.StatusNotFound, "No key matches "+ref)
			return
		} else if err != nil {
			problem(w, http.StatusBadRequest, err.Error())
			return
		}
		reply(w, http.StatusOK, map[string]any{"data": View(k)})
	case path == "/admin/reload" && r.Method == http.MethodPost && h.Reload != nil:
		id, err := h.Reload()
		if err != nil {
			problem(w, http.StatusUnprocessableEntity, "Reload refused, the previous catalogue is still served: "+err.Error())
			return
		}
		reply(w, http.StatusOK, map[string]any{"data": map[string]string{"identity": id}})
	default:
		problem(w, http.StatusNotFound, "No admin route "+r.Method+" "+r.URL.Path)
	}
}

// profile serves the Go profiler (net/http/pprof) behind the admin token:
// the index, cmdline (h.Cmdline, redacted), profile (CPU, ?seconds=N),
// symbol, trace and every named profile (heap, goroutine, allocs, block,
// mutex, threadcreate).
func (h *Handler) profile(w http.ResponseWriter, r *http.Request) {
	switch name := strings.TrimPrefix(r.URL.Path, "/debug/pprof/"); name {
	case "":
		pprof.Index(w, r)
	case "cmdline": // as pprof.Cmdline writes it, but from h.Cmdline
		args := h.Cmdline
		if args == nil {
			args = os.Args[:1]
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, strings.Join(args, "\x00"))
	case "profile":
		pprof.Profile(w, r)
	case "symbol":
		pprof.Symbol(w, r)
	case "trace":
		pprof.Trace(w, r)
	default:
		pprof.Handler(name).ServeHTTP(w, r)
	}
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func problem(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/problem+json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"type": "about:blank", "title": http.StatusText(status), "status": status, "detail": detail})
}

// TokenFile is the admin token's file in the state directory.
const TokenFile = "admin.token"

// MinTokenLen is the shortest admin token accepted, from -admin.token or
// the token file.
const MinTokenLen = 16

// LoadOrCreateToken returns the admin token: from value ("file://PATH" or
// literal) when given, else from <stateDir>/admin.token, created on first
// use with 32 random bytes. A token file that exists must hold a token of
// MinTokenLen characters or more: an empty one (a start that failed while
// writing it, on a full disk) would let no one in, with no word why, so it
// is an error naming the file and what to do. The file is created whole
// or not at all (written beside, synced, then linked into place).
func LoadOrCreateToken(value, stateDir string) ([]byte, error) {
	if value != "" {
		value, err := secret.Read(value)
		if err != nil {
			return nil, fmt.Errorf("cannot read admin token: %w", err)
		}
		if len(value) < MinTokenLen {
			return nil, fmt.Errorf("the admin token must be at least %d characters", MinTokenLen)
		}
		return []byte(value), nil
	}
	path := filepath.Join(stateDir, TokenFile)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		tok := strings.TrimSpace(string(b))
		if len(tok) < MinTokenLen {
			return nil, fmt.Errorf("%s holds %d characters, want an admin token of at least %d: a start that failed while creating it leaves it empty. "+
				"Remove the file to have a new token created (clients of the admin API then need it), write a token of at least %d characters into it, or give -admin.token", path, len(tok), MinTokenLen, MinTokenLen)
		}
		return []byte(tok), nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("cannot read the admin token: %w", err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	tok := fmt.Sprintf("%x", raw)
	if err := createWhole(path, []byte(tok+"\n")); errors.Is(err, fs.ErrExist) {
		return LoadOrCreateToken("", stateDir) // created meanwhile: use that one
	} else if err != nil {
		return nil, fmt.Errorf("cannot create the admin token: %w", err)
	}
	return []byte(tok), nil
}

// createWhole creates the file at path with content b, mode 0600, whole
// or not at all: a crash or a full disk leaves no partial file at path.
// It fails with an error wrapping fs.ErrExist when path exists.
func createWhole(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Link(tmp.Name(), path)
}
