package bench

import (
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
