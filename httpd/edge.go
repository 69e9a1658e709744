package httpd

import (
	"bytes"
	"errors"
	"net"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/observe"
)

// What the edge refuses before a request reaches a route: the framing and
// size rules of "Limits and abuse" in docs/operating.md. fasthttp's own answers
// (a request it cannot parse, a header or body over its limit) go through
// parseError, so every response the API emits is an RFC 9457 problem.

// KeyRequestBodyBytes is the largest body of POST /v1/keys/demo (and its
// alias /v1/keys), the only API request with a body.
const KeyRequestBodyBytes = 16 << 10

// requestConfig is fasthttp's HeaderReceived hook: it sets the body limit
// of each request from its method and path before the body is read, so a
// client cannot make the server buffer a body no route takes. A request
// that is not the key request may carry at most one byte, which the
// handler then refuses (GET and HEAD take no body at all).
//
// It also marks a message with both Content-Length and Transfer-Encoding
// (only a chunked one can be: fasthttp refuses other codings) for closing;
// fasthttp keeps only the chunked framing and, once the body is read, no
// longer tells, so refuseFraming looks again at the raw headers of
// messages so marked.
func requestConfig(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	if h.ContentLength() == -1 && hasField(h.RawHeaders(), fieldContentLength) {
		h.SetConnectionClose()
	}
	if isKeyRequest(h) {
		return fasthttp.RequestConfig{MaxRequestBodySize: KeyRequestBodyBytes}
	}
	return fasthttp.RequestConfig{MaxRequestBodySize: 1}
}

// isKeyRequest reports whether h is the head of a key request, the one
// request with a body.
func isKeyRequest(h *fasthttp.RequestHeader) bool {
	if !h.IsPost() {
		return false
	}
	path := h.RequestURI()
	if i := bytes.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	return bytes.Equal(path, pathKeyRequest) || bytes.Equal(path, pathKeyRequestAlias)
}

var (
	pathKeyRequest      = []byte("/v1/keys/demo")
	pathKeyRequestAlias = []byte("/v1/keys")
)

// framingRefusal is the problem of a request whose framing or shape no
// route may see, or nil: a message with both Content-Length and
// Transfer-Encoding (RFC 9112 §6.1: the connection is closed after the
// answer, so nothing smuggled behind it is read), a body on GET or HEAD,
// and an encoded slash in the path (never a separator).
func framingRefusal(ctx *fasthttp.RequestCtx) *Error {
	h := &ctx.Request.Header
	if h.ConnectionClose() && hasField(h.RawHeaders(), fieldTransferEncoding) && hasField(h.RawHeaders(), fieldContentLength) {
		ctx.SetConnectionClose()
		return errorf(fasthttp.StatusBadRequest, "The request has both Content-Length and Transfer-Encoding, which RFC 9112 forbids; the connection is closed.").kind("invalid-request")
	}
	if (h.IsGet() || h.IsHead()) && (h.ContentLength() > 0 || len(ctx.Request.Body()) > 0) {
		return errorf(fasthttp.StatusRequestEntityTooLarge, "A "+string(h.Method())+" request takes no body.")
	}
	if uri := ctx.RequestURI(); bytes.IndexByte(uri, '%') >= 0 && encodedSlash(uri) {
		return errorf(fasthttp.StatusNotFound, "The path contains an encoded slash (%2F), which is never a path separator here.")
	}
	return nil
}

var (
	fieldContentLength    = []byte("content-length")
	fieldTransferEncoding = []byte("transfer-encoding")
)

// hasField reports whether raw request headers hold a field of the name
// (lower case), whatever its case and the white space before its colon.
func hasField(raw, name []byte) bool {
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		if len(line) > len(name) && bytes.EqualFold(line[:len(name)], name) {
			if rest := bytes.TrimLeft(line[len(name):], " \t"); len(rest) > 0 && rest[0] == ':' {
				return true
			}
		}
	}
	return false
}

// encodedSlash reports whether the path part of a raw request URI holds
// %2F or %2f.
func encodedSlash(uri []byte) bool {
	if i := bytes.IndexByte(uri, '?'); i >= 0 {
		uri = uri[:i]
	}
	for i := 0; i+2 < len(uri); i++ {
		if uri[i] == '%' && uri[i+1] == '2' && (uri[i+2] == 'F' || uri[i+2] == 'f') {
			return true
		}
	}
	return false
}

// parseError is fasthttp's ErrorHandler: the answer to a request it could
// not read. fasthttp closes the connection after it.
func parseError(ctx *fasthttp.RequestCtx, obs *observe.Observer, err error) {
	var small *fasthttp.ErrSmallBuffer
	var ne net.Error
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		detail := "This request takes no body."
		if isKeyRequest(&ctx.Request.Header) {
			detail = "The body is larger than the " + strconv.Itoa(KeyRequestBodyBytes>>10) + " KiB this endpoint accepts."
		}
		writeProblem(ctx, obs, errorf(fasthttp.StatusRequestEntityTooLarge, detail))
	case errors.As(err, &small):
		writeProblem(ctx, obs, errorf(fasthttp.StatusRequestHeaderFieldsTooLarge, "The request line and headers are larger than the server reads; shorten the query or the headers."))
	case errors.As(err, &ne) && ne.Timeout():
		writeProblem(ctx, obs, errorf(fasthttp.StatusRequestTimeout, "The request was not received in time."))
	default:
		writeProblem(ctx, obs, errorf(fasthttp.StatusBadRequest, "The request could not be parsed as HTTP/1.1: "+truncate(err.Error(), 160)+".").kind("invalid-request"))
	}
}
