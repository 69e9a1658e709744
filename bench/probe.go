package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"time"
)

// LoopbackClient is a normal client on 127.0.0.1 with keep-alive
// connections, as the connection-flood runs time it beside the flood.
func LoopbackClient() *http.Client {
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4,
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.1")}}).DialContext}}
}

// Probe makes n GET requests of url with c, one after the other, until
// deadline (none when zero), and returns the count of each status (0 for
// a request without a response) and the latencies of the answered ones in
// ascending order.
func Probe(c *http.Client, url string, n int, deadline time.Time) (codes map[int]int, lat []time.Duration) {
	codes = map[int]int{}
	for i := 0; i < n && (deadline.IsZero() || time.Now().Before(deadline)); i++ {
		t0 := time.Now()
		res, err := c.Get(url)
		if err != nil {
			codes[0]++
			continue
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		lat = append(lat, time.Since(t0))
		codes[res.StatusCode]++
	}
	slices.Sort(lat)
	return codes, lat
}

// KeyedLoop is one client of a load kept up while a test changes the
// servers (a snapshot rollout, say): GET requests of Paths in turn to
// Addr, each with the X-Api-Key Key, one at a time on Client.
type KeyedLoop struct {
	Client *http.Client
	Ctx    context.Context // of every request (carrying an httptrace.ClientTrace, say); nil is context.Background()
	Addr   string          // host:port
	Key    string
	Paths  []string
	Max    int           // requests at the most
	For    time.Duration // and for this long at the most
	// Accept says whether a response with this status and
	// X-Catalogue-Version is a success.
	Accept func(status int, version string) bool
}

// Answer is what a KeyedLoop saw of one request.
type Answer struct {
	URI     string      // the path and query asked
	Header  http.Header // the response's headers; nil after a transport error
	Version string      // the response's X-Catalogue-Version
	Fail    string      // "" when accepted; else the transport error, or the status and version Accept refused
}

// Run sends the requests until stop is closed, Max were sent or For has
// passed, reading and closing every body, and hands each answer to see.
func (l KeyedLoop) Run(stop <-chan struct{}, see func(Answer)) {
	ctx := l.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	deadline := time.Now().Add(l.For)
	for i := 0; i < l.Max && time.Now().Before(deadline); i++ {
		select {
		case <-stop:
			return
		default:
		}
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+l.Addr+l.Paths[i%len(l.Paths)], nil)
		req.Header.Set("X-Api-Key", l.Key)
		a := Answer{URI: req.URL.RequestURI()}
		res, err := l.Client.Do(req)
		if err != nil {
			a.Fail = err.Error()
		} else {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			a.Header, a.Version = res.Header, res.Header.Get("X-Catalogue-Version")
			if !l.Accept(res.StatusCode, a.Version) {
				a.Fail = fmt.Sprintf("%d, version %q", res.StatusCode, a.Version)
			}
		}
		see(a)
	}
}
