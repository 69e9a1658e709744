// Command connflood opens many idle TCP connections to a server on
// loopback, spread over source addresses 127.0.0.2, 127.0.0.3, ... (each
// a different client network to the server), holds them, and meanwhile
// times a normal client's requests from 127.0.0.1. It measures how the
// connection caps of httpd/connguard hold up (bench/RESULTS.md, "Limits
// and abuse").
//
// It only dials loopback addresses and stops by itself after -hold.
//
//	go run ./bench/cmd/connflood -addr 127.0.0.1:8080 -conns 10000 -perSource 200 -path /v1/health
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"strings"
	"time"

	"github.com/vspec/catalogue/bench"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "loopback host:port of the server")
	conns := flag.Int("conns", 10000, "idle connections to open")
	perSource := flag.Int("perSource", 200, "connections per source address (127.0.0.2 upwards)")
	firstSource := flag.Int("firstSource", 2, "the first source address is the n-th counting 127.0.0.2 as 2 (several floods can use disjoint addresses)")
	hold := flag.Duration("hold", 20*time.Second, "how long to hold the connections")
	requests := flag.Int("requests", 500, "requests of the normal client while they are held")
	path := flag.String("path", "/v1/health", "path the normal client gets")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		log.Fatalf("-addr must be a loopback host:port, not %q", *addr)
	}

	t0 := time.Now()
	var held []net.Conn
	status := map[string]int{}
	for i := 0; i < *conns; i++ {
		n := *firstSource - 2 + i / *perSource // 0, 1, ... → 127.0.0.2, 127.0.0.3, ...
		src := fmt.Sprintf("127.0.%d.%d", n/250, 2+n%250)
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 2 * time.Second}
		c, err := d.Dial("tcp", *addr)
		if err != nil {
			status["dial error"]++
			continue
		}
		held = append(held, c)
	}
	// A refused connection has a problem waiting; an admitted one has
	// nothing to read.
	for _, c := range held {
		c.SetReadDeadline(time.Now().Add(time.Millisecond))
		line, err := bufio.NewReader(c).ReadString('\n')
		switch {
		case strings.HasPrefix(line, "HTTP/1.1 "):
			status["refused "+strings.TrimSpace(line[9:])]++
		case err != nil && strings.Contains(err.Error(), "timeout"):
			status["held open"]++
		default:
			status["closed"]++
		}
	}
	fmt.Printf("opened %d connections in %s: %v\n", len(held), time.Since(t0).Round(time.Millisecond), status)

	deadline := time.Now().Add(*hold)
	codes, lat := bench.Probe(bench.LoopbackClient(), "http://"+*addr+*path, *requests, deadline)
	if len(lat) > 0 {
		fmt.Printf("normal client: %v; p50 %s, p99 %s\n", codes, lat[len(lat)/2], lat[len(lat)*99/100])
	} else {
		fmt.Printf("normal client: %v\n", codes)
	}
	if rem := time.Until(deadline); rem > 0 {
		time.Sleep(rem)
	}
	for _, c := range held {
		c.Close()
	}
	if codes[200] == 0 {
		os.Exit(1)
	}
}
