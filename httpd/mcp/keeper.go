package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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
	limiter   access.NetworkCounter
	trusted   []netip.Prefix
	now       func() time.Time
	challenge string // WWW-Authenticate of a 401
}

// maxBody bounds a request body, as the SDK does by default.
const maxBody = sdk.DefaultMaxRequestBodyBytes

func (k *keeper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key, sent, ok := credential(r.Header)
	if !ok {
		k.unauthorized(w, `The Authorization header must be "Bearer <API key>"; or send the key in X-Api-Key.`)
		return
	}
	calls := 0
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
			writeProblem(w, http.StatusRequestEntityTooLarge, "content-too-large", "The request body is larger than "+strconv.Itoa(maxBody)+" bytes.", nil)
			return
		} else if err != nil {
			writeProblem(w, http.StatusBadRequest, "invalid-request", "The request body could not be read.", nil)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if calls = toolCalls(body); calls > 1 {
			writeProblem(w, http.StatusBadRequest, "invalid-request", "A request may carry one tools/call; send the calls one by one.", nil)
			return
		}
	}
	if sent {
		k.keyed(w, r, key, calls == 1)
		return
	}
	if calls == 1 {
		network := keyflow.Network(peer(r), r.Header.Values("X-Forwarded-For"), k.trusted)
		ok, wait, err := k.limiter.Allow(network, k.now())
		if err != nil {
			writeProblem(w, http.StatusServiceUnavailable, "unavailable",
				"The access store cannot be reached, so the call is refused rather than served uncounted. Retry after the Retry-After delay.",
				http.Header{"Retry-After": {"2"}})
			return
		}
		if !ok {
			writeProblem(w, http.StatusTooManyRequests, "Too Many Requests",
				"Tool calls without an API key are limited to "+strconv.FormatInt(k.limiter.Limit(), 10)+
					" a minute per network, and this network has made them this minute. Retry after the Retry-After delay, or use an API key: see "+k.svc.UpgradeURL()+".",
				http.Header{"Retry-After": {strconv.FormatInt(int64(wait/time.Second), 10)}})
			return
		}
		r = r.WithContext(withTurn(r.Context(), &turn{}))
	}
	k.next.ServeHTTP(w, r)
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

// toolCalls counts the tools/call requests of a JSON-RPC body, a message or
// a batch. A body that is not JSON-RPC counts none: the transport refuses
// it, and a tool handler refuses a call that was not admitted.
func toolCalls(body []byte) int {
	type message struct {
		Method string `json:"method"`
	}
	body = bytes.TrimSpace(body)
	var msgs []message
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &msgs) != nil {
			return 0
		}
	} else {
		var m message
		if json.Unmarshal(body, &m) != nil {
			return 0
		}
		msgs = append(msgs, m)
	}
	n := 0
	for _, m := range msgs {
		if m.Method == "tools/call" {
			n++
		}
	}
	return n
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
