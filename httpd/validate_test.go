package httpd_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/valyala/fasthttp"
)

// The end-to-end tests check every response they receive against the
// OpenAPI document the server serves, with libopenapi-validator: status,
// headers and body must be what the description says, so the document and
// the server cannot drift apart.

var (
	validatorOnce sync.Once
	validatorErr  error
	docValidator  validator.Validator
	validateMu    sync.Mutex // the validator is not documented as concurrency-safe
)

func (e *env) validator(t testing.TB) validator.Validator {
	validatorOnce.Do(func() {
		r := e.getRaw("/v1/openapi.json")
		doc, err := libopenapi.NewDocument(r)
		if err != nil {
			validatorErr = err
			return
		}
		v, errs := validator.NewValidator(doc)
		if len(errs) > 0 {
			validatorErr = errs[0]
			return
		}
		docValidator = v
	})
	if validatorErr != nil {
		t.Fatalf("cannot build a validator from /v1/openapi.json: %v", validatorErr)
	}
	return docValidator
}

// getRaw fetches a path without validation.
func (e *env) getRaw(path string) []byte {
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.SetRequestURI("http://" + e.addr + path)
	fasthttp.Do(req, res)
	return append([]byte(nil), res.Body()...)
}

// validate checks one exchange against the description.
func (e *env) validate(t testing.TB, req *fasthttp.Request, res *fasthttp.Response) {
	t.Helper()
	method := string(req.Header.Method())
	if method == "HEAD" || method == "OPTIONS" {
		return // no body to check; GET of the same route is checked
	}
	hreq, _ := http.NewRequest(method, "http://"+e.addr+string(req.RequestURI()), bytes.NewReader(req.Body()))
	for k, v := range req.Header.All() {
		hreq.Header.Add(string(k), string(v))
	}
	hres := &http.Response{StatusCode: res.StatusCode(), Header: http.Header{}, Request: hreq}
	for k, v := range res.Header.All() {
		hres.Header.Add(string(k), string(v))
	}
	hres.Header.Set("Content-Type", string(res.Header.ContentType()))
	body, enc := decodedBody(t, res)
	if enc != "" {
		hres.Header.Del("Content-Encoding")
	}
	hres.Body = io.NopCloser(bytes.NewReader(body))
	v := e.validator(t)
	validateMu.Lock()
	ok, errs := v.ValidateHttpResponse(hreq, hres)
	validateMu.Unlock()
	if ok {
		return
	}
	for _, err := range errs {
		msg := err.Message
		// Deliberate probes of paths and methods the API does not have.
		if strings.Contains(msg, "Path") && strings.Contains(msg, "not found") || strings.Contains(msg, "is not supported by the path") || strings.Contains(msg, "method") && strings.Contains(msg, "not found") {
			continue
		}
		t.Errorf("%s %s -> %d does not match the description: %s (%s)", method, req.RequestURI(), res.StatusCode(), msg, err.Reason)
		for _, sv := range err.SchemaValidationErrors {
			t.Errorf("  %s at %s", sv.Reason, sv.FieldPath)
		}
	}
}

// TestValidatorCatchesDrift makes sure the check above is not a no-op: a
// response that breaks the description must be reported.
func TestValidatorCatchesDrift(t *testing.T) {
	e := newEnv(t)
	v := e.validator(t)
	check := func(status int, ctype, body string) bool {
		req, _ := http.NewRequest("GET", "http://"+e.addr+"/v1/brands", nil)
		req.Header.Set("X-Api-Key", e.free)
		res := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ctype}}, Request: req, Body: io.NopCloser(strings.NewReader(body))}
		ok, _ := v.ValidateHttpResponse(req, res)
		return ok
	}
	good := string(e.getRawKey("/v1/brands?limit=2", e.free))
	if !check(200, "application/json; charset=utf-8", good) {
		t.Fatal("a real response does not validate")
	}
	for name, body := range map[string]string{
		"data not an array": `{"data":"x","links":{},"meta":{"last_synced_at":"2026-11-01T03:00:00Z","locale":"en","units":"metric"}}`,
		"meta missing":      `{"data":[],"links":{}}`,
		"brand without id":  `{"data":[{"name":"X","slug":"x","sameAs":[]}],"links":{},"meta":{"last_synced_at":"2026-11-01T03:00:00Z","locale":"en","units":"metric"}}`,
		"unknown field":     strings.Replace(good, `"slug":`, `"legacy_id":1,"slug":`, 1),
		"bad locale":        strings.Replace(good, `"locale":"en"`, `"locale":"xx"`, 1),
	} {
		if check(200, "application/json; charset=utf-8", body) {
			t.Errorf("%s: the validator accepted a response that breaks the description", name)
		}
	}
	if check(418, "application/json", `{}`) {
		t.Error("an undocumented status was accepted")
	}
}

func (e *env) getRawKey(path, key string) []byte {
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.SetRequestURI("http://" + e.addr + path)
	req.Header.Set("X-Api-Key", key)
	fasthttp.Do(req, res)
	return append([]byte(nil), res.Body()...)
}
