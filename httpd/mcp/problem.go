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

// writeProblem writes a problem response with extra headers.
func writeProblem(w http.ResponseWriter, status int, title, detail string, extra http.Header) {
	body, _ := json.Marshal(problemDetail{Type: "about:blank", Title: title, Status: status, Detail: detail})
	writeBody(w, status, body, extra)
}

// writeAnswer relays a REST refusal: its status, its problem body and the
// headers that tell the client when to retry.
func writeAnswer(w http.ResponseWriter, a *httpd.Answer, extra http.Header) {
	h := http.Header{}
	for _, name := range []string{"Retry-After", "RateLimit", "RateLimit-Policy"} {
		if v := a.Header.Get(name); v != "" {
			h.Set(name, v)
		}
	}
	for k, v := range extra {
		h[k] = v
	}
	writeBody(w, a.Status, a.Body, h)
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

// detailOf returns what a REST problem body says was wrong.
func detailOf(a *httpd.Answer) problemDetail {
	var p problemDetail
	if json.Unmarshal(a.Body, &p) != nil || p.Title == "" {
		p = problemDetail{Title: http.StatusText(a.Status), Status: a.Status}
	}
	if p.Status == 0 {
		p.Status = a.Status
	}
	return p
}

// quote quotes an untrusted header value for a message, cut short.
func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return strconv.Quote(s)
}
