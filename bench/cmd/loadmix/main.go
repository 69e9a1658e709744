// Command loadmix prints the load mix of a running server, with the ids
// discovered through its API, one route a line: its name and its paths,
// tab-separated. bench/wrk.sh drives these paths with wrk.
//
//	go run ./bench/cmd/loadmix -target 127.0.0.1:8080 -key vsc_free_...
//	go run ./bench/cmd/loadmix -pinned -queries 266 ...   # bench.PinnedMix
//
// With -pinned it prints bench.PinnedMix instead of bench.Mix: the mix and
// the routes it leaves out, "search cached" and "search uncached", whose
// -queries phrases come from bench.DiscoverQueries.
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
	target  = flag.String("target", "127.0.0.1:8080", "host:port (or http://host:port) of the server")
	key     = flag.String("key", "", "API key, sent as X-Api-Key")
	routes  = flag.String("routes", "", "regular expression selecting routes by name; empty prints all")
	pinned  = flag.Bool("pinned", false, "print bench.PinnedMix (the pinned wrk run's routes) instead of bench.Mix")
	queries = flag.Int("queries", 266, "with -pinned, how many search phrases the \"search uncached\" route sends (0 leaves the route out)")
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
	mix := bench.Mix(ids)
	if *pinned {
		var qs []string
		if *queries > 0 && sel.MatchString(bench.RouteSearchUncached) {
			if qs, err = bench.DiscoverQueries(addr, *key, *queries); err != nil {
				log.Fatalf("loadmix: %v", err)
			}
		}
		mix = bench.PinnedMix(ids, qs)
	}
	for _, rt := range mix {
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
