// Package bench holds the macro benchmarks and the load harness of the
// catalogue service, as Config structs and Run functions driven by
// `go test -bench . ./bench/...`, and their results in RESULTS.md.
//
// The micro benchmarks live beside the code they measure
// (data/gen, loader, engine: *_timing_test.go); this package measures the
// service as a whole over loopback. It may import anything; nothing
// imports it.
package bench
