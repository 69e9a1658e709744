package mcp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/keyflow"
)

// keeper decides who a request is before the MCP transport sees it: the
// key is checked on every request; a tools/call is admitted on the key's
// counters, or counted against the network's limit when there is no key.
// The admission travels to the tool handler in the request's context.
//
// The checks are at the HTTP level because that is where MCP clients look
// for them: a 401 with WWW-Authenticate starts a client's authorization
// flow, and 429 and 503 with Retry-After are what HTTP clients back off on.
type keeper struct {
	svc       *httpd.Service
	next      http.Handler
	calls     access.NetworkCounter // keyless tool calls per network
	requests  access.NetworkCounter // keyless requests of any kind per network
	trusted   []netip.Prefix
	now       func() time.Time
	challenge string // WWW-Authenticate of a 401
}

func (k *keeper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key, sent, ok := credential(r.Header)
	if !ok {
		k.unauthorized(w, `The Authorization header must be "Bearer <API key>"; or send the key in X-Api-Key.`)
		return
	}
	if !sent && !k.allow(w, r, k.requests, "Requests to the MCP endpoint") {
		return
	}
	var env envelope
	post := r.Method == http.MethodPost
	if post {
		body, err := io.ReadAll(r.Body) // bodies() has read and bounded it
		if err != nil {
			writeProblem(w, http.StatusBadRequest, "invalid-request", "The request body could not be read.", nil)
			return
		}
		msg, e, refused := readEnvelope(body)
		if refused != nil {
			writeRPCError(w, e, refused)
			return
		}
		env = e
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(msg)), int64(len(msg))
	}
	pw := &plainErrors{ResponseWriter: w, env: env, post: post}
	defer pw.finish()
	if sent {
		k.keyed(pw, r, key, env.call)
		return
	}
	if env.call {
		if !k.allow(pw, r, k.calls, "Tool calls") {
			return
		}
		r = r.WithContext(withTurn(r.Context(), &turn{}))
	}
	k.next.ServeHTTP(pw, r)
}

// allow counts a keyless request of the caller's network in a per-minute
// window, and answers 429 (or 503 when the window cannot be counted) when
// it may not go on. what names what the window counts.
func (k *keeper) allow(w http.ResponseWriter, r *http.Request, window access.NetworkCounter, what string) bool {
	network := keyflow.Network(peer(r), r.Header.Values("X-Forwarded-For"), k.trusted)
	ok, wait, err := window.Allow(network, k.now())
	switch {
	case err != nil:
		writeProblem(w, http.StatusServiceUnavailable, "unavailable",
			"The access store cannot be reached, so the request is refused rather than served uncounted. Retry after the Retry-After delay.",
			http.Header{"Retry-After": {"2"}})
		return false
	case !ok:
		writeProblem(w, http.StatusTooManyRequests, "network-rate-limited",
			what+" without an API key are limited to "+strconv.FormatInt(window.Limit(), 10)+
				" a minute per network, and this network has made them this minute. Retry after the Retry-After delay, or use an API key: see "+k.svc.UpgradeURL()+".",
			http.Header{"Retry-After": {strconv.FormatInt(int64(wait/time.Second), 10)}})
		return false
	}
	return true
}

// keyed serves a request that sent a key: checked like on REST, and for a
// tool call admitted on its counters, counted only when it was served.
func (k *keeper) keyed(w http.ResponseWriter, r *http.Request, key string, call bool) {
	if !call {
		if _, refused := k.svc.Authenticate(key); refused != nil {
			k.refuse(w, refused)
			return
		}
		k.next.ServeHTTP(w, r)
		return
	}
	adm := k.svc.Admit(key)
	if adm.Refused != nil {
		k.refuse(w, adm.Refused)
		return
	}
	for name, v := range adm.Header {
		w.Header()[name] = v
	}
	t := &turn{key: adm.Key, ticket: adm.Ticket}
	k.next.ServeHTTP(w, r.WithContext(withTurn(r.Context(), t)))
	t.close()
}

// refuse relays the refusal of a key.
func (k *keeper) refuse(w http.ResponseWriter, e *httpd.Error) {
	var extra http.Header
	if e.Status == http.StatusUnauthorized {
		extra = http.Header{"Www-Authenticate": {k.challenge}}
	}
	writeError(w, e, extra)
}

func (k *keeper) unauthorized(w http.ResponseWriter, detail string) {
	writeProblem(w, http.StatusUnauthorized, "key-required", detail, http.Header{"Www-Authenticate": {k.challenge}})
}

// challenge is the WWW-Authenticate of a 401: Bearer, pointing at the
// protected-resource metadata (RFC 9728 §5.1).
func challenge(metadata string) string {
	return `Bearer realm="catalogue", error="invalid_token", resource_metadata="` + metadata + `"`
}

// credential returns the key a request sends, in X-Api-Key or as a bearer
// token, and whether it sends one. An Authorization header that is not a
// bearer token is not ok: a request offering a credential is never served
// as if it had none.
func credential(h http.Header) (key string, sent, ok bool) {
	if k := strings.TrimSpace(h.Get("X-Api-Key")); k != "" {
		return k, true, true
	}
	a := strings.TrimSpace(h.Get("Authorization"))
	if a == "" {
		return "", false, true
	}
	scheme, token, found := strings.Cut(a, " ")
	if token = strings.TrimSpace(token); !found || !strings.EqualFold(scheme, "bearer") || token == "" {
		return "", true, false
	}
	return token, true, true
}

// peer returns the address of the connection's peer.
func peer(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.IPv6Unspecified()
	}
	return ap.Addr()
}

// turn is one admitted tool call: the caller's key (nil without one) and
// the reservation on its counters, kept when the call was served and
// released otherwise: also when the call never reached the tool (bad
// arguments, unknown tool) or the client went away.
type turn struct {
	key    *access.Key
	ticket access.Ticket
	state  atomic.Uint32 // turnOpen, turnServed or turnClosed
}

const (
	turnOpen uint32 = iota
	turnServed
	turnClosed
)

// served marks the call served; it reports false when the turn was already
// closed (the client went away before the answer).
func (t *turn) served() bool { return t.state.CompareAndSwap(turnOpen, turnServed) }

// close releases the reservation of a call that was not served.
func (t *turn) close() {
	if t.state.CompareAndSwap(turnOpen, turnClosed) {
		t.ticket.Release()
	}
}

type turnKey struct{}

func withTurn(ctx context.Context, t *turn) context.Context {
	return context.WithValue(ctx, turnKey{}, t)
}

// turnOf returns the admitted call of a tool handler's context, nil when
// the call was not admitted.
func turnOf(ctx context.Context) *turn {
	t, _ := ctx.Value(turnKey{}).(*turn)
	return t
}
