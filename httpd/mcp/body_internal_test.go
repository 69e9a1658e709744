package mcp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBodyLimit: the MCP endpoint reads at most MaxBodyBytes of a body and
// answers a larger one with a 413 problem before the transport sees it.
func TestBodyLimit(t *testing.T) {
	var got int
	h := bodies(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = len(b)
	}))
	for _, c := range []struct {
		name   string
		body   io.Reader
		length int64
		status int
	}{
		{"small", strings.NewReader(`{"jsonrpc":"2.0"}`), -1, 200},
		{"at the limit, chunked", strings.NewReader(strings.Repeat("x", MaxBodyBytes)), -1, 200},
		{"over the limit, chunked", strings.NewReader(strings.Repeat("x", MaxBodyBytes+1)), -1, 413},
		{"announced over the limit", strings.NewReader(""), MaxBodyBytes + 1, 413},
	} {
		got = -1
		r := httptest.NewRequest("POST", Path, c.body)
		r.ContentLength = c.length
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.status {
			t.Fatalf("%s: status %d, want %d", c.name, w.Code, c.status)
		}
		if c.status == 413 {
			if got != -1 || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/problem+json") {
				t.Fatalf("%s: reached the transport (%d) or not a problem (%q)", c.name, got, w.Header().Get("Content-Type"))
			}
		}
	}
}
