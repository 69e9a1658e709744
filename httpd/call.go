package httpd

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/x402"
)

// The in-process face of the payable operations for the agent surface
// (httpd/mcp): the same operations, parameter tables, key checks and
// metering as the REST routes, called with a tool's JSON arguments.

// Caller is whom a call is answered for.
type Caller struct {
	// Key is the caller's key, admitted with Admit; nil for a caller
	// without a key.
	Key *access.Key
	// Paid marks a keyless caller whose x402 payment was verified: it is
	// answered from the full catalogue, as a paying REST caller is. A
	// keyless caller that did not pay is answered from the demo set, as a
	// demo key is.
	Paid bool
}

// Call answers a payable operation for the caller with an MCP tool's
// arguments (named as ToolInputSchema names them): the JSON body REST
// would send, or the error REST would write. Authentication, admission and
// payment are the caller's: see Admit and x402.Gate.Sell.
func (s *Service) Call(op Operation, args map[string]json.RawMessage, who Caller) ([]byte, *Error) {
	var text fasthttp.Args
	if err := toolArgs(&text, args); err != nil {
		return nil, err
	}
	rq := getRequest()
	defer putRequest(rq)
	t := tierFull
	switch {
	case who.Key != nil:
		rq.key, rq.raw = who.Key, who.Key.Plan == access.PlanApify
		if who.Key.Plan == access.PlanDemo {
			t = tierDemo
		}
	case !who.Paid:
		t = tierDemo
	}
	if err := s.ops.answer(rq, s.view.Load(), payable[op].op, t, &text, true); err != nil {
		return nil, asError(err)
	}
	return append([]byte(nil), rq.body...), nil
}

// toolArgs writes JSON arguments as the text a query string would carry:
// a string as it is, a number or boolean as written, a list (compare's
// ids) joined with commas.
func toolArgs(dst *fasthttp.Args, args map[string]json.RawMessage) *Error {
	for _, name := range slices.Sorted(maps.Keys(args)) { // the first error is the same on every call
		raw := bytes.TrimSpace(args[name])
		var v []byte
		switch {
		case len(raw) > 0 && raw[0] == '"':
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return badParam([]byte(name), true, "is not a valid JSON string")
			}
			v = []byte(s)
		case len(raw) > 0 && raw[0] == '[':
			var items []json.RawMessage
			if json.Unmarshal(raw, &items) != nil {
				return badParam([]byte(name), true, "is not a valid JSON array")
			}
			for i, item := range items {
				var s string
				if json.Unmarshal(item, &s) != nil {
					s = string(bytes.TrimSpace(item))
				}
				if bytes.IndexByte([]byte(s), ',') >= 0 {
					return badParam([]byte(name+"["+strconv.Itoa(i)+"]"), true, "holds a comma: give each id as its own array element")
				}
				if i > 0 {
					v = append(v, ',')
				}
				v = append(v, s...)
			}
		default:
			v = raw
		}
		dst.AddBytesV(name, v)
	}
	return nil
}

// Admission is the outcome of Admit.
type Admission struct {
	// Key and Ticket are set when the key was admitted; Release the ticket
	// when the call did not succeed, so it is not counted.
	Key    *access.Key
	Ticket access.Ticket
	// Refused says why the key was not admitted: 401 unknown, 403 revoked
	// or not yet active, 429 over a limit, 503 metering unavailable.
	Refused *Error
	// Header carries RateLimit and RateLimit-Policy of an admitted call,
	// and for a key of the deprecated free plan Deprecation, Sunset and
	// Link.
	Header http.Header
}

// Authenticate checks a key as the REST routes do, without counting a
// call: the key, or why it is refused (401 unknown, 403 revoked or not yet
// active).
func (s *Service) Authenticate(key string) (*access.Key, *Error) {
	return s.authenticate([]byte(key))
}

// Admit checks a key as the REST routes do and reserves one call on its
// counters.
func (s *Service) Admit(key string) Admission {
	k, err := s.authenticate([]byte(key))
	if err != nil {
		return Admission{Refused: err}
	}
	rq := getRequest()
	defer putRequest(rq)
	ticket, err := s.admit(rq, k, s.opts.Now())
	if err != nil {
		return Admission{Refused: err}
	}
	h := http.Header{"Ratelimit-Policy": {string(s.policy[k.Plan])}, "Ratelimit": {string(rq.hdr)}}
	if k.Plan == access.PlanFree {
		var fh fasthttp.ResponseHeader
		s.deprecated(&fh)
		for name, v := range fh.All() {
			h.Add(string(name), string(v))
		}
	}
	return Admission{Key: k, Ticket: ticket, Header: h}
}

// ToolInputSchema is the JSON Schema of the arguments of the MCP tool of
// a payable operation: its parameter table, as a tool names and types
// them, with the installed catalogue's vocabularies.
func (s *Service) ToolInputSchema(op Operation) map[string]any {
	return toolInputSchema(payable[op].op.params, s.view.Load().vocab)
}

// Payments returns the x402 gate, nil when payments are off.
func (s *Service) Payments() *x402.Gate { return s.opts.Payments }

// UpgradeURL is where refusals point callers for the full catalogue.
func (s *Service) UpgradeURL() string { return s.opts.UpgradeURL }
