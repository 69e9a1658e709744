package httpd_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/publicid"
)

// TestCompression checks each negotiated coding decodes to exactly the
// identity body, and that the negotiation honours q-values.
func TestCompression(t *testing.T) {
	e := newEnv(t)
	p := "/v1/variants/" + e.codec.Token(publicid.Variant, e.cat.VarID[3]) + "/specs?locale=pl"
	identity := e.get(p, e.free)
	if identity.header["Content-Encoding"] != "" {
		t.Fatal("compressed without Accept-Encoding")
	}
	decode := func(accept string) (string, []byte) {
		req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(res)
		req.SetRequestURI("http://" + e.addr + p)
		req.Header.Set("X-Api-Key", e.free)
		req.Header.Set("Accept-Encoding", accept)
		if err := fasthttp.DoTimeout(req, res, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		body, enc := decodedBody(t, res)
		if enc != "" && len(res.Body()) >= len(identity.body) {
			t.Errorf("%s body of %d bytes is not smaller than %d", enc, len(res.Body()), len(identity.body))
		}
		return enc, body
	}
	for _, tc := range []struct{ accept, want string }{
		{"gzip", "gzip"}, {"br", "br"}, {"zstd", "zstd"}, {"gzip, deflate, br", "br"}, {"gzip;q=1, br;q=0.5", "gzip"},
		{"br;q=0, gzip", "gzip"}, {"*", "br"}, {"*;q=0", ""}, {"identity", ""}, {"deflate", ""}, {"gzip;q=0.000", ""},
		{"zstd;q=0.9, br;q=0.8", "zstd"}, {"GZIP", "gzip"},
	} {
		for round := 0; round < 2; round++ { // the second round is served from the cache
			enc, body := decode(tc.accept)
			if enc != tc.want {
				t.Errorf("Accept-Encoding %q: %q, want %q", tc.accept, enc, tc.want)
			}
			if !bytes.Equal(body, identity.body) {
				t.Fatalf("Accept-Encoding %q (round %d): decoded body differs from the identity body", tc.accept, round)
			}
		}
	}
	small := e.get("/v1/brands/volkswagen", e.free, "Accept-Encoding", "gzip")
	if small.header["Content-Encoding"] != "" {
		t.Error("a body under 1 KiB was compressed")
	}
}

// decodedBody returns a copy of res's body decoded from its
// Content-Encoding (gzip, br or zstd), and that coding; with none, the body
// as sent and "".
func decodedBody(t testing.TB, res *fasthttp.Response) (body []byte, enc string) {
	t.Helper()
	enc = string(res.Header.Peek("Content-Encoding"))
	var err error
	switch enc {
	case "gzip":
		body, err = res.BodyGunzip()
	case "br":
		body, err = res.BodyUnbrotli()
	case "zstd":
		body, err = res.BodyUnzstd()
	default:
		body = append([]byte(nil), res.Body()...)
	}
	if err != nil {
		t.Fatalf("cannot decode %s body: %v", enc, err)
	}
	return body, enc
}
