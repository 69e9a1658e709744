package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The keeper decides who a request is and how many tool calls it carries
// before the SDK reads it. Two readers of one body that disagree are a
// bypass (encoding/json matches keys case-insensitively and the SDK does
// not: a second "Method" key once made the keeper count one call of a batch
// the SDK ran fifty times), so the keeper reads the body with the SDK's own
// decoder (jsonrpc.DecodeMessage), refuses what the two could still read
// differently (batches, repeated members, ids the SDK would rewrite), and
// hands the SDK the message re-encoded from what it read. Whatever the SDK
// then runs is exactly what was admitted.

// JSON-RPC 2.0 error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// maxExactID bounds a numeric id: the SDK keeps ids as float64 on the way in
// and int64 on the way out, so only integers of at most 53 bits come back
// as they were sent (1.5e300 once came back as -9223372036854775808).
const maxExactID = 1<<53 - 1

// envelope is what the keeper knows of a POST's one JSON-RPC message.
type envelope struct {
	id     json.RawMessage // the id as sent; nil when absent or unusable
	method string          // "" for a response
	call   bool            // a tools/call request
}

// rpcError is a refusal of a message: a JSON-RPC error answered with the
// HTTP status that goes with it.
type rpcError struct {
	status  int
	code    int64
	message string
}

func invalid(format string, args ...any) *rpcError {
	return &rpcError{http.StatusBadRequest, codeInvalidRequest, fmt.Sprintf(format, args...)}
}

// readEnvelope reads the body of a POST: one JSON-RPC message. It returns
// the bytes the transport is to read (the message re-encoded from what the
// SDK's decoder read, with a tools/call's absent or null arguments made
// {}), what the keeper needs to know of it, or the refusal to answer.
func readEnvelope(body []byte) ([]byte, envelope, *rpcError) {
	body = bytes.TrimSpace(body)
	switch {
	case len(body) == 0:
		return nil, envelope{}, invalid("The request body is empty: POST one JSON-RPC message.")
	case body[0] == '[':
		return nil, envelope{}, invalid("JSON-RPC batches are not accepted: MCP removed batching in protocol version 2025-06-18, and each tool call is admitted on its own. POST one message per request.")
	case body[0] != '{':
		if !json.Valid(body) {
			return nil, envelope{}, &rpcError{http.StatusBadRequest, codeParseError, "The request body is not JSON."}
		}
		return nil, envelope{}, invalid("The request body must be one JSON-RPC message, a JSON object.")
	}
	members, err := objectMembers(body)
	if err != nil {
		if errors.Is(err, errRepeated) {
			return nil, envelope{}, invalid("The message is not accepted: %v.", err)
		}
		return nil, envelope{}, &rpcError{http.StatusBadRequest, codeParseError, "The request body is not JSON: " + err.Error() + "."}
	}
	var env envelope
	if raw, ok := members["id"]; ok {
		if err := checkID(raw); err != nil {
			return nil, envelope{}, err
		}
		env.id = raw
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return nil, env, invalid("The message is not JSON-RPC 2.0: %v.", err)
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return body, env, nil // a response to a server request: the transport deals with it
	}
	env.method = req.Method
	if req.Method == "tools/call" {
		env.call = true
		var refused *rpcError
		if req.Params, refused = callParams(req.Params); refused != nil {
			return nil, env, refused
		}
	}
	out, err := jsonrpc.EncodeMessage(req)
	if err != nil { // cannot happen for a message DecodeMessage read; refuse rather than pass it on
		return nil, env, invalid("The message could not be re-encoded: %v.", err)
	}
	return out, env, nil
}

// checkID refuses an id the SDK would not echo back as sent: JSON-RPC ids
// are strings, integers or null.
func checkID(raw json.RawMessage) *rpcError {
	switch raw[0] {
	case '"', 'n':
		return nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err == nil && n >= -maxExactID && n <= maxExactID {
			return nil
		}
		return invalid("The id %s is not accepted: a numeric id must be an integer between -%d and %d (or send a string).", clip(raw), int64(maxExactID), int64(maxExactID))
	}
	return invalid("The id must be a string, an integer or null.")
}

// callParams checks the params of a tools/call and returns them with
// absent or null arguments as {}: the SDK applies the tool schema's
// defaults to the arguments as a map, and a null one reached it as a nil
// map and panicked in a goroutine nobody recovers (the whole process went
// down, no key needed).
func callParams(params json.RawMessage) (json.RawMessage, *rpcError) {
	refuse := func(format string, args ...any) *rpcError {
		return &rpcError{http.StatusBadRequest, codeInvalidParams, fmt.Sprintf(format, args...)}
	}
	params = bytes.TrimSpace(params)
	if len(params) == 0 || params[0] != '{' {
		return nil, refuse(`The params of tools/call must be an object: {"name": <tool>, "arguments": {…}}.`)
	}
	members, err := objectMembers(params)
	if err != nil {
		return nil, refuse("The params of tools/call are not accepted: %v.", err)
	}
	args, ok := members["arguments"]
	switch {
	case ok && len(args) > 0 && args[0] == '{':
		return params, nil
	case ok && !bytes.Equal(args, []byte("null")):
		return nil, refuse(`The arguments of a tool call must be an object of the tool's arguments by name, e.g. {"query": "golf"}.`)
	}
	members["arguments"] = json.RawMessage("{}")
	out, err := json.Marshal(members)
	if err != nil { // raw members re-marshal: cannot fail
		return nil, refuse("The params of tools/call could not be read: %v.", err)
	}
	return out, nil
}

var errRepeated = errors.New("repeated member")

// objectMembers returns the members of a JSON object by their exact names
// (no case folding), refusing an object that names a member twice: two
// decoders may keep different ones of the two.
func objectMembers(obj []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	members := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name := t.(string) // an object's keys are strings, or Token failed
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := members[name]; dup {
			return nil, fmt.Errorf("%w %q", errRepeated, clip([]byte(name)))
		}
		members[name] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return members, nil
}

// clip shortens an untrusted text for a message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// rpcErrorBody is a JSON-RPC error response.
type rpcErrorBody struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcErrorObject  `json:"error"`
}

type rpcErrorObject struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// writeRPCError answers a JSON-RPC error for the message env (its id, or
// null).
func writeRPCError(w http.ResponseWriter, env envelope, e *rpcError) {
	id := env.id
	if id == nil {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(rpcErrorBody{JSONRPC: "2.0", ID: id, Error: rpcErrorObject{e.code, e.message}})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.status)
	w.Write(body)
}

// plainErrors turns the transport's own plain-text refusals into JSON-RPC
// errors (for a POST) or problems (otherwise): an MCP client reads a
// JSON-RPC error, and every other answer of this server is a problem.
type plainErrors struct {
	http.ResponseWriter
	env    envelope
	post   bool
	status int // of a refusal being captured; 0 when none
	text   bytes.Buffer
}

func (p *plainErrors) WriteHeader(status int) {
	if status >= 400 && strings.HasPrefix(p.Header().Get("Content-Type"), "text/plain") {
		p.status = status
		p.Header().Del("Content-Type")
		p.Header().Del("X-Content-Type-Options")
		return
	}
	p.ResponseWriter.WriteHeader(status)
}

func (p *plainErrors) Write(b []byte) (int, error) {
	if p.status != 0 {
		if p.text.Len() < 1024 {
			p.text.Write(b)
		}
		return len(b), nil
	}
	return p.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flushes of
// event streams).
func (p *plainErrors) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// finish writes the captured refusal, if any, in its JSON form.
func (p *plainErrors) finish() {
	if p.status == 0 {
		return
	}
	text := strings.TrimSpace(p.text.String())
	if !p.post {
		writeProblem(p.ResponseWriter, p.status, "", text, nil)
		return
	}
	code := int64(codeInvalidRequest)
	if strings.Contains(text, "not handled") || p.status == http.StatusNotFound {
		code = codeMethodNotFound
	}
	writeRPCError(p.ResponseWriter, p.env, &rpcError{p.status, code, text})
}
