package httpd_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/valyala/fasthttp"
)

// FuzzRequest sends arbitrary paths and query strings, with each kind of
// key and an arbitrary PAYMENT-SIGNATURE, straight to the handler: whatever
// arrives, the answer is never a 500 or a panic, every error is an RFC 9457
// problem naming what was wrong (a 402's as application/json with the offer
// in PAYMENT-REQUIRED), and every success is JSON.
func FuzzRequest(f *testing.F) {
	for _, seed := range []string{
		"/v1/variants?fuel=diesel&power_min=150&cursor=abc",
		"/v1/variants?power_min=abc&year=20x5&ev=maybe",
		"/v1/variants?body=SUV&body=van&limit=0",
		"/v1/search?q=volkswagn%20golf&limit=999&locale=xx",
		"/v1/search?q=%FF%FE&cursor=%00",
		"/v1/compare?ids=v_1,v_2,v_3,v_4,v_5&units=metric",
		"/v1/brands/volkswagen/models?limit=-1",
		"/v1/variants/v_00000000/specs?locale=ar&units=imperial",
		"/v1/generations/g_zz/variants?cursor=",
		"/v1/demo", "/v1/usage", "/v1/export", "/v1/openapi.json", "/v1/../etc/passwd", "//v1//brands",
	} {
		for k := uint8(0); k < 3; k++ {
			f.Add(seed, k, "")
		}
		f.Add(seed, uint8(2), "eyJ4NDAyVmVyc2lvbiI6Mn0=") // {"x402Version":2}
		f.Add(seed, uint8(2), "not base64")
	}
	e := newEnv(f)
	h := e.svc.Handler()
	keys := []string{e.free, e.demo, ""}
	f.Fuzz(func(t *testing.T, uri string, key uint8, payment string) {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod("GET")
		ctx.Request.SetRequestURI(uri)
		if k := keys[int(key)%len(keys)]; k != "" {
			ctx.Request.Header.Set("X-Api-Key", k)
		}
		if payment != "" {
			ctx.Request.Header.Set("PAYMENT-SIGNATURE", payment)
		}
		h(&ctx)
		status := ctx.Response.StatusCode()
		ct := string(ctx.Response.Header.ContentType())
		body := ctx.Response.Body()
		switch {
		case status >= 500 && status != fasthttp.StatusServiceUnavailable:
			t.Fatalf("%q: %d %s", uri, status, body)
		case status == fasthttp.StatusPaymentRequired:
			var p struct {
				Status int    `json:"status"`
				Detail string `json:"detail"`
			}
			if ct != "application/json; charset=utf-8" || json.Unmarshal(body, &p) != nil || p.Status != status || p.Detail == "" ||
				len(ctx.Response.Header.Peek("PAYMENT-REQUIRED")) == 0 {
				t.Fatalf("%q: 402 %s without an offer or a detail: %s", uri, ct, body)
			}
		case status >= 400:
			var p struct {
				Status int    `json:"status"`
				Title  string `json:"title"`
				Detail string `json:"detail"`
			}
			if ct != "application/problem+json; charset=utf-8" || json.Unmarshal(body, &p) != nil || p.Status != status || p.Detail == "" {
				t.Fatalf("%q: %d %s is not a problem with a detail: %s", uri, status, ct, body)
			}
		case status == 200 && bytes.HasPrefix([]byte(ct), []byte("application/json")):
			if !json.Valid(body) {
				t.Fatalf("%q: invalid JSON: %s", uri, body)
			}
		}
	})
}
