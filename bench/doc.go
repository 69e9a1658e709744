// Package bench holds the load harness of the catalogue service (issue 6)
// and its results in RESULTS.md. It measures the service as a whole over
// loopback; the micro benchmarks live beside the code they measure
// (*_timing_test.go). It may import anything; nothing imports it.
//
// The pieces:
//
//   - Mix is the fixed route mix: variant detail, specs in three locales,
//     the brand and model lists, a generation's variants, the filter with
//     two and three conditions, compare of 4, and typeahead with prefixes
//     and with typos. Routes whose parameters vary (filters, search) send
//     a fixed list of paths in turn. DiscoverIDs finds the ids the mix
//     names by walking the API, so the same mix runs against any server.
//   - Drive measures one route at fixed concurrency (req/s, p50, p99,
//     p99.9, bytes, allocations); StaticServer replays the same bytes with
//     no work, the ceiling each route is compared with, and its
//     allocations (the client's own) give the server's by difference
//     (Row.ServerAllocsPerReq); AtHalfPeak measures
//     latency below saturation. A route answering 404 (one the server does
//     not have yet) is skipped.
//   - RunUnderReload drives the mix while a fresh catalogue is decoded and
//     installed every few seconds, and reports failed requests and latency
//     while decoding and after each swap.
//   - ReadMemory and LoadReport give RSS, Go heap, snapshot load and
//     reload times; WriteChart draws throughput against the ceiling (and
//     PostgreSQL) as SVG.
//   - ReadPG reads the database peer's result, written by pg/run.sh, which
//     runs the same search and filter queries with pgbench against
//     PostgreSQL over the rows cmd/pgtsv exports.
//   - wrk.sh measures with wrk the way issue 20 asks, outside the Go
//     client: catalogued and its static twin (cmd/static, which replays
//     the exact status, headers and body catalogued sent for each path)
//     each alone on core 1 with GOMAXPROCS=1, wrk -t1 pinned to core 0,
//     in many short pairs of runs (the order alternating), the median of
//     the pairs' req/s ratios, and each server's CPU µs per request from
//     /proc/PID/stat: the primary figures
//     of RESULTS.md. Its routes are PinnedMix (the mix, generations,
//     images, prices, the spec catalogue, a cached search and
//     DiscoverQueries' phrases against a second catalogued with the search
//     cache off), which cmd/loadmix -pinned prints. With TARGET it drives
//     any server without pinning, as before. The in-process harness stays
//     for allocation counts and latency at half peak.
//   - instr.sh counts, under valgrind's callgrind, the instructions each
//     httpd BenchmarkHandlers route costs per request (the timed loop
//     alone), for the commits given: a figure other load does not move,
//     for before-and-after comparisons of a few percent (issue 15).
//
// The benchmarks (load_test.go) are the entry points:
//
//	go test ./bench -run '^$' -bench Load -benchtime 1x                      # in process, full catalogue
//	go test ./bench -run '^$' -bench Load -benchtime 1x -bench.target=HOST:PORT -bench.key=KEY
//	go test ./bench -run '^$' -bench Reload -benchtime 1x                    # reloads under load
//	bench/pg/run.sh                                                          # the PostgreSQL peer, before Load
//	bench/wrk.sh                                                             # pinned wrk against a static twin
//	SCALE=0.05 REPEAT=1 bench/wrk.sh                                         # the same on a small catalogue, quickly
//	bench/instr.sh d4c5aa6 HEAD                                              # handler instructions per request, per commit
package bench
