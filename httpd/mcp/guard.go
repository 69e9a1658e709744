package mcp

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/vspec/catalogue/httpd/hostguard"
)

// guard refuses requests whose Host or Origin is not ours: a web page on
// another site can make a browser send requests to a server on the user's
// machine (DNS rebinding: the attacker's name resolves to 127.0.0.1), and
// only these headers tell such a request apart. The MCP transport spec asks
// servers to validate Origin and refuse a present, invalid one with 403.
// The rules are httpd/hostguard's, shared with the admin listener.
type guard struct{ *hostguard.Guard }

func newGuard(hosts, origins []string) *guard { return &guard{hostguard.New(hosts, origins)} }

// hosts refuses a request whose Host is not allowed.
func (g *guard) hosts(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.HostAllowed(r.Host) {
			writeProblem(w, http.StatusForbidden, "origin-refused", (&hostguard.Refusal{Header: "Host", Value: r.Host}).Error(), nil)
			return
		}
		// Host names are case-insensitive: the SDK's own loopback check is
		// not, and answered LOCALHOST:1 with a plain-text 403.
		r.Host = strings.ToLower(r.Host)
		next.ServeHTTP(w, r)
	})
}

// origins refuses a request whose Origin is present and not allowed, and
// lets allowed browser origins read the answers (CORS).
func (g *guard) origins(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		if !g.OriginAllowed(origin) {
			writeProblem(w, http.StatusForbidden, "origin-refused", (&hostguard.Refusal{Header: "Origin", Value: origin}).Error(), nil)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", "WWW-Authenticate, Retry-After, RateLimit, RateLimit-Policy, Mcp-Session-Id")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "POST, GET, DELETE, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, X-Api-Key, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// MaxBodyBytes is the largest request body the MCP endpoint reads: a
// tools/call is a few hundred bytes, a batch of them a few KiB.
const MaxBodyBytes = 64 << 10

// bodies reads a request's body whole, up to MaxBodyBytes, before the
// transport sees it, and refuses a larger one with 413 (a problem, where
// http.MaxBytesReader would leave the SDK to answer in its own words).
func bodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxBodyBytes {
			tooLarge(w)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			b, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
			if err != nil {
				writeProblem(w, http.StatusBadRequest, "invalid-request", "The request body could not be read: "+err.Error(), nil)
				return
			}
			if len(b) > MaxBodyBytes {
				tooLarge(w)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		next.ServeHTTP(w, r)
	})
}

func tooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close") // do not read the rest of what was sent
	writeProblem(w, http.StatusRequestEntityTooLarge, "content-too-large",
		"The request body is larger than the "+strconv.Itoa(MaxBodyBytes>>10)+" KiB the MCP endpoint accepts.", nil)
}
