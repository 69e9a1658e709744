package mcp

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/vspec/catalogue/httpd"
)

// HTTP-level refusals are RFC 9457 problems, as on REST.

const contentProblem = "application/problem+json; charset=utf-8"

// problemDetail is the REST error body.
type problemDetail struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// writeProblem writes a problem of the kind (see httpd.ProblemKinds) with
// extra headers.
func writeProblem(w http.ResponseWriter, status int, kind, detail string, extra http.Header) {
	writeError(w, &httpd.Error{Status: status, Kind: kind, Detail: detail}, extra)
}

// writeError writes an operation's refusal as REST does: its status, its
// problem body and the fields that tell the client when to retry.
func writeError(w http.ResponseWriter, e *httpd.Error, extra http.Header) {
	h := http.Header{}
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.FormatInt(e.RetryAfter, 10))
	}
	for i := 0; i+1 < len(e.Header); i += 2 {
		if name := http.CanonicalHeaderKey(e.Header[i]); name == "Ratelimit" || name == "Ratelimit-Policy" {
			h.Set(name, e.Header[i+1])
		}
	}
	for k, v := range extra {
		h[k] = v
	}
	body, _ := json.Marshal(problemDetail{Type: e.TypeURI(), Title: e.Title(), Status: e.Status, Detail: e.Detail})
	writeBody(w, e.Status, body, h)
}

func writeBody(w http.ResponseWriter, status int, body []byte, extra http.Header) {
	h := w.Header()
	for k, v := range extra {
		h[k] = v
	}
	h.Set("Content-Type", contentProblem)
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
