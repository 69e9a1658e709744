package httpd_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/publicid"
)

// rawExchange writes raw bytes to the server on a new connection and reads
// the responses that come back until the server closes the connection or
// nothing more comes within a short wait.
func rawExchange(t *testing.T, addr, raw string) []*http.Response {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	var out []*http.Response
	for range 4 {
		c.SetReadDeadline(time.Now().Add(time.Second))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			var ne net.Error
			if errors.Is(err, io.EOF) || errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) {
				return out
			}
			t.Fatalf("reading a response: %v", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(strings.NewReader(string(b)))
		out = append(out, resp)
		if resp.Close {
			return out
		}
	}
	return out
}

// wantProblem checks that r is an RFC 9457 problem with status whose
// detail contains detail.
func wantProblem(t *testing.T, r *http.Response, status int, detail string) {
	t.Helper()
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", r.StatusCode, status, b)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json; charset=utf-8" {
		t.Fatalf("Content-Type %q, want application/problem+json: %s", ct, b)
	}
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil || p["status"] != float64(status) || p["title"] == nil || !documentedType(p["type"], status) {
		t.Fatalf("not a problem document of a documented type: %s", b)
	}
	if d, _ := p["detail"].(string); !strings.Contains(d, detail) {
		t.Fatalf("detail %q does not contain %q", d, detail)
	}
}

// rawProblem writes raw to the server on a new connection, checks that
// exactly one response comes back, an RFC 9457 problem with status whose
// detail contains detail, and returns it.
func rawProblem(t *testing.T, addr, raw string, status int, detail string) *http.Response {
	t.Helper()
	got := rawExchange(t, addr, raw)
	if len(got) != 1 {
		t.Fatalf("%.80q: %d responses, want 1", raw, len(got))
	}
	wantProblem(t, got[0], status, detail)
	return got[0]
}

// TestSmuggling: a message with both Content-Length and Transfer-Encoding
// is refused and its connection closed, so the request pipelined behind
// it is never answered (RFC 9112 §6.1), whichever header comes first.
func TestSmuggling(t *testing.T) {
	e := newEnv(t)
	behind := "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"
	for _, headers := range []string{
		"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
		"Transfer-Encoding: chunked\r\ncontent-LENGTH:5\r\n",
	} {
		raw := "POST /v1/keys/demo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + headers + "\r\n0\r\n\r\n" + behind
		// One response: the pipelined request must not be answered.
		if r := rawProblem(t, e.addr, raw, 400, "both Content-Length and Transfer-Encoding"); !r.Close {
			t.Fatalf("%q: the connection is kept open", headers)
		}
	}
	// A field name with white space before the colon is refused by the
	// parser itself, with the connection closed too.
	if r := rawProblem(t, e.addr, "POST /v1/keys/demo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length : 5\r\n\r\n0\r\n\r\n"+behind, 400, "could not be parsed"); !r.Close {
		t.Fatal("white space before the colon: the connection is kept open")
	}
	// Requests that are merely closing or chunked are not refused.
	got := rawExchange(t, e.addr, "GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	if len(got) != 1 || got[0].StatusCode != 200 {
		t.Fatalf("health with Connection: close: %v", got)
	}
	got = rawExchange(t, e.addr, "POST /v1/keys/demo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
	if len(got) != 1 || got[0].StatusCode == 400 && strings.Contains(readBody(got[0]), "Transfer-Encoding") {
		t.Fatalf("a chunked key request is refused as smuggling: %v", got)
	}
}

func readBody(r *http.Response) string {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(strings.NewReader(string(b)))
	return string(b)
}

// TestBodyLimits: GET and HEAD take no body; the key request takes at most
// 16 KiB, refused from Content-Length before the body is read.
func TestBodyLimits(t *testing.T) {
	e := newEnv(t)
	for _, raw := range []string{
		"GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx",
		"GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 4000000\r\n\r\n",
		"HEAD /v1/brands HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n",
	} {
		got := rawExchange(t, e.addr, raw)
		if len(got) == 0 {
			t.Fatalf("%q: no answer", raw)
		}
		if got[0].StatusCode != 413 {
			t.Fatalf("%q: status %d, want 413", raw, got[0].StatusCode)
		}
		if ct := got[0].Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
			t.Fatalf("%q: Content-Type %q", raw, ct)
		}
	}
	// 4 MiB announced, none sent: the answer must not wait for the body.
	rawProblem(t, e.addr, "POST /v1/keys/demo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4194304\r\n\r\n", 413, "16 KiB")
}

// TestParseErrorsAreProblems: what fasthttp answers on its own (a request
// it cannot parse, headers over the limit) is an RFC 9457 problem too.
func TestParseErrorsAreProblems(t *testing.T) {
	e := newEnv(t)
	// A NUL in the path, 10,000 query parameters, a malformed header.
	rawProblem(t, e.addr, "GET /v1/bra\x00nds HTTP/1.1\r\nHost: x\r\n\r\n", 400, "")
	rawProblem(t, e.addr, "GET /v1/brands?"+strings.Repeat("a=1&", 10_000)+" HTTP/1.1\r\nHost: x\r\n\r\n", 431, "shorten the query")
	rawProblem(t, e.addr, "GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n", 400, "could not be parsed")
}

// TestEncodedSlash: %2F in a path is never a separator, for any key.
func TestEncodedSlash(t *testing.T) {
	e := newEnv(t)
	vt := e.codec.Token(publicid.Variant, e.cat.VarID[e.cat.Demo[0]])
	for _, key := range []string{e.apify, e.demo} {
		for _, p := range []string{"/v1/variants/" + vt + "%2Fprices", "/v1/variants/" + vt + "%2fspecs", "/v1%2Fbrands"} {
			// Raw, as a client that does not normalise sends it.
			got := rawExchange(t, e.addr, "GET "+p+" HTTP/1.1\r\nHost: x\r\nX-Api-Key: "+key+"\r\n\r\n")
			if len(got) == 0 {
				t.Fatalf("%s: no answer", p)
			}
			wantProblem(t, got[0], 404, "encoded slash")
		}
	}
	// An encoded slash in the query is data, not a path.
	if r := e.get("/v1/search?q=a%2Fb", e.apify); r.status != 200 {
		t.Fatalf("search with %%2F in the query: %d %s", r.status, r.body)
	}
}
