package httpd_test

import (
	"bytes"
	"encoding/json"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/data/vocab"
	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/loader"
)

// start serves a small catalogue on a real loopback listener.
func start(t *testing.T) (addr string, holder *engine.Holder, snap []byte) {
	t.Helper()
	s, err := gen.Generate(vocab.Default(), gen.Options{Scale: 0.01, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := loader.Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	c, err := loader.FromBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	holder = engine.NewHolder(c)
	srv := httpd.New(holder, httpd.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown() })
	return ln.Addr().String(), holder, buf.Bytes()
}

func do(t *testing.T, method, url string) (int, *fasthttp.ResponseHeader, []byte) {
	t.Helper()
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(method)
	req.SetRequestURI(url)
	if err := fasthttp.DoTimeout(req, resp, 5*time.Second); err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	h := &fasthttp.ResponseHeader{}
	resp.Header.CopyTo(h)
	return resp.StatusCode(), h, append([]byte(nil), resp.Body()...)
}

func TestHealth(t *testing.T) {
	addr, holder, _ := start(t)
	status, h, body := do(t, "GET", "http://"+addr+"/v1/health")
	if status != 200 || string(h.ContentType()) != "application/json; charset=utf-8" {
		t.Fatalf("status %d, content type %s", status, h.ContentType())
	}
	var got struct {
		Data struct {
			Status         string `json:"status"`
			ActiveVariants int    `json:"active_variants"`
		} `json:"data"`
		Meta struct {
			LastSyncedAt time.Time `json:"last_synced_at"`
			Locale       string    `json:"locale"`
			Units        string    `json:"units"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	_, _, _, n := holder.Load().Counts()
	if got.Data.Status != "ok" || got.Data.ActiveVariants != n || got.Meta.LastSyncedAt.IsZero() || got.Meta.Locale != "en" || got.Meta.Units != "metric" {
		t.Errorf("health %+v", got)
	}
	status, _, body = do(t, "HEAD", "http://"+addr+"/v1/health")
	if status != 200 || len(body) != 0 {
		t.Errorf("HEAD: status %d, body %q", status, body)
	}
}

func TestProblems(t *testing.T) {
	addr, _, _ := start(t)
	check := func(method, path string, status int, detail string) {
		t.Helper()
		got, h, body := do(t, method, "http://"+addr+path)
		if got != status || string(h.ContentType()) != "application/problem+json; charset=utf-8" {
			t.Errorf("%s %s: status %d, content type %s", method, path, got, h.ContentType())
		}
		var p map[string]any
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		if p["type"] != "about:blank" || p["status"] != float64(status) || p["title"] == "" || p["detail"] != detail {
			t.Errorf("%s %s: problem %v", method, path, p)
		}
	}
	check("GET", "/v1/no/such/route", 404, "No route for /v1/no/such/route")
	check("DELETE", "/v1/health", 405, "The method DELETE is not allowed on /v1/health; see the Allow header")
}

// TestReloadUnderLoad swaps catalogues while clients hammer the server: no
// request fails.
func TestReloadUnderLoad(t *testing.T) {
	addr, holder, snap := start(t)
	var failed, served atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &fasthttp.Client{}
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			req.SetRequestURI("http://" + addr + "/v1/health")
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := c.DoTimeout(req, resp, 5*time.Second); err != nil || resp.StatusCode() != 200 {
					failed.Add(1)
				}
				served.Add(1)
			}
		}()
	}
	for i := 0; i < 5; i++ {
		c, err := loader.FromBytes(snap)
		if err != nil {
			t.Fatal(err)
		}
		holder.Swap(c)
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if failed.Load() != 0 || served.Load() == 0 {
		t.Errorf("%d of %d requests failed during reloads", failed.Load(), served.Load())
	}
}
