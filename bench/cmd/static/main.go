// Command static is the static twin of bench/wrk.sh (issue 20): a fasthttp
// server that does no work, answering each request URI with the exact
// status, headers and body the real server sent for it, so that driving
// it and catalogued alike with wrk on the same core gives the ceiling of a
// route and its server's share of the cost.
//
//	go run ./bench/cmd/static -listen 127.0.0.1:18090 -target 127.0.0.1:18080 -key vsc_free_... -mix mix.tsv
//
// At start it reads the paths of every route in -mix (the output of
// bench/cmd/loadmix: a route's name and its paths, tab-separated, one route
// a line), sends each once to -target with the key, keeps the response,
// then listens. Every header is replayed but Date (fasthttp sets its own,
// as catalogued's does), Content-Length (set from the body) and Connection;
// it is served by httpd.NewServer, with catalogued's fasthttp settings
// (read and write deadlines, idle timeout, read buffer, the request header
// hook, the Server name), so that the two differ only by the work. A
// request URI it did not capture gets 404. Run it with GOMAXPROCS=1 and
// pinned to a core, as wrk.sh does. With -pprof it also serves
// net/http/pprof on that address, to profile the twin as catalogued's admin
// listener profiles catalogued (the difference of the two profiles is the
// server's work).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof" // served on -pprof only
	"os"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd"
)

var (
	listen = flag.String("listen", "127.0.0.1:18090", "host:port to listen on")
	target = flag.String("target", "127.0.0.1:8080", "host:port of the server whose responses are replayed")
	key    = flag.String("key", "", "API key sent as X-Api-Key when capturing")
	pprof  = flag.String("pprof", "", "host:port to serve net/http/pprof on (off when empty)")
	mix    = flag.String("mix", "", "file of routes as bench/cmd/loadmix prints them: the paths to capture (required)")
)

// reply is one captured response.
type reply struct {
	status  int
	headers [][2][]byte
	body    []byte
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	if *mix == "" {
		log.Fatal("static: -mix is required")
	}
	paths, err := readPaths(*mix)
	if err != nil {
		log.Fatalf("static: %v", err)
	}
	table := make(map[string]*reply, len(paths))
	for _, p := range paths {
		r, err := capture(*target, *key, p)
		if err != nil {
			log.Fatalf("static: %v", err)
		}
		table[p] = r
	}
	if *pprof != "" {
		go func() { log.Printf("static: pprof: %v", http.ListenAndServe(*pprof, nil)) }()
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("static: %v", err)
	}
	// catalogued's own server settings (timeouts, read buffer, request
	// header hook, name): the same server, the same bytes, no work.
	srv := httpd.NewServer(httpd.Options{}, func(ctx *fasthttp.RequestCtx) {
		r, ok := table[string(ctx.RequestURI())]
		if !ok {
			ctx.SetStatusCode(fasthttp.StatusNotFound)
			return
		}
		ctx.SetStatusCode(r.status)
		for _, h := range r.headers {
			ctx.Response.Header.SetBytesKV(h[0], h[1])
		}
		ctx.Response.SetBodyRaw(r.body)
	})
	fmt.Fprintf(os.Stderr, "static: %d paths captured from %s, listening on %s\n", len(table), *target, ln.Addr())
	if err := srv.Serve(ln); err != nil {
		log.Fatalf("static: %v", err)
	}
}

// readPaths returns the paths of every route in a loadmix file, each once.
func readPaths(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var paths []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		for _, p := range fields[1:] {
			if p != "" && !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no path", name)
	}
	return paths, nil
}

// capture gets path from the server at addr and keeps its status, the
// headers it replays and its body; any status but 200 is an error.
func capture(addr, key, path string) (*reply, error) {
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.SetRequestURI("http://" + addr + path)
	if key != "" {
		req.Header.Set("X-Api-Key", key)
	}
	if err := fasthttp.DoTimeout(req, res, 30*time.Second); err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if res.StatusCode() != fasthttp.StatusOK {
		return nil, fmt.Errorf("GET %s: status %d: %.200s", path, res.StatusCode(), res.Body())
	}
	r := &reply{status: res.StatusCode(), body: append([]byte(nil), res.Body()...)}
	for k, v := range res.Header.All() {
		switch {
		case bytes.EqualFold(k, []byte("Date")), bytes.EqualFold(k, []byte("Content-Length")),
			bytes.EqualFold(k, []byte("Connection")), bytes.EqualFold(k, []byte("Server")),
			bytes.EqualFold(k, []byte("Transfer-Encoding")):
			continue
		}
		r.headers = append(r.headers, [2][]byte{append([]byte(nil), k...), append([]byte(nil), v...)})
	}
	return r, nil
}
