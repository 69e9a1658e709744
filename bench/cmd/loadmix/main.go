// Command loadmix prints the load mix of a running server, with the ids
// discovered through its API, one route a line: its name and its paths,
// tab-separated. bench/wrk.sh drives these paths with wrk.
//
//	go run ./bench/cmd/loadmix -target 127.0.0.1:8080 -key vsc_free_...
//
// A route whose first path answers 404 (a route the server does not have
// yet, such as /v1/search before it lands) is left out with a note on
// standard error; any other status but 200 is an error.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"regexp"
	"strings"

	"github.com/vspec/catalogue/bench"
)

var (
	target = flag.String("target", "127.0.0.1:8080", "host:port (or http://host:port) of the server")
	key    = flag.String("key", "", "API key, sent as X-Api-Key")
	routes = flag.String("routes", "", "regular expression selecting routes by name; empty prints all")
)

func main() {
	flag.Parse()
	sel, err := regexp.Compile(*routes)
	if err != nil {
		log.Fatalf("loadmix: -routes: %v", err)
	}
	addr := bench.HostPort(*target)
	ids, err := bench.DiscoverIDs(addr, *key)
	if err != nil {
		log.Fatalf("loadmix: %v", err)
	}
	for _, rt := range bench.Mix(ids) {
		if !sel.MatchString(rt.Name) {
			continue
		}
		paths := rt.Paths
		if len(paths) == 0 {
			paths = []string{rt.Path}
		}
		_, _, err := bench.Capture(addr, *key, paths[0])
		if bench.IsNotFound(err) {
			fmt.Fprintf(os.Stderr, "%s: skipped: 404\n", rt.Name)
			continue
		}
		if err != nil {
			log.Fatalf("loadmix: %s: %v", rt.Name, err)
		}
		fmt.Printf("%s\t%s\n", rt.Name, strings.Join(paths, "\t"))
	}
}
