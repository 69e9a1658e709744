package httpd_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// FuzzRawRequest feeds arbitrary bytes, as a client would send them on the
// wire, to the real fasthttp server of the service (ServeConn over a
// connection that reads them and then ends), so fasthttp's own parsing and
// the edge's framing rules are exercised together: every answer is a
// well-formed HTTP response, never a 5xx other than 503, and every 4xx but
// a 402 is an RFC 9457 problem, including those fasthttp writes itself.
func FuzzRawRequest(f *testing.F) {
	for _, seed := range []string{
		"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
		"POST /v1/keys/demo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /v1/health HTTP/1.1\r\n\r\n",
		"POST /v1/keys/demo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
		"GET /v1/variants/v_1%2Fprices HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /v1/bra\x00nds HTTP/1.1\r\nHost: x\r\n\r\n",
		"HEAD /v1/brands HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n",
		"GET / HTTP/1.0\r\n\r\n",
		"\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	e := newEnv(f)
	srv := e.svc.Server()
	f.Fuzz(func(t *testing.T, raw []byte) {
		c := &rawConn{in: bytes.NewReader(raw)}
		srv.ServeConn(c) // returns when the input ends or the server closes
		br := bufio.NewReader(&c.out)
		for range 16 {
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				return
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			switch {
			case res.StatusCode >= 500 && res.StatusCode != 503:
				t.Fatalf("%q: %d %s", raw, res.StatusCode, body)
			case res.StatusCode >= 400 && res.StatusCode != 402:
				var p struct {
					Status int    `json:"status"`
					Detail string `json:"detail"`
				}
				if res.Header.Get("Content-Type") != "application/problem+json; charset=utf-8" || json.Unmarshal(body, &p) != nil ||
					p.Status != res.StatusCode || p.Detail == "" {
					if bytes.Contains(raw, []byte("HEAD")) {
						return // a HEAD answer carries no body, and its framing ends the read
					}
					t.Fatalf("%q: %d %s is not a problem with a detail: %s", raw, res.StatusCode, res.Header.Get("Content-Type"), body)
				}
			}
		}
	})
}

// rawConn is a connection whose peer sent in and then closed its side;
// what the server writes collects in out.
type rawConn struct {
	in  *bytes.Reader
	out bytes.Buffer
}

func (c *rawConn) Read(b []byte) (int, error)       { return c.in.Read(b) }
func (c *rawConn) Write(b []byte) (int, error)      { return c.out.Write(b) }
func (c *rawConn) Close() error                     { return nil }
func (c *rawConn) LocalAddr() net.Addr              { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080} }
func (c *rawConn) RemoteAddr() net.Addr             { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2), Port: 40000} }
func (c *rawConn) SetDeadline(time.Time) error      { return nil }
func (c *rawConn) SetReadDeadline(time.Time) error  { return nil }
func (c *rawConn) SetWriteDeadline(time.Time) error { return nil }
