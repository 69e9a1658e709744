package mcp_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/mcp"
)

// BenchmarkToolCall measures one tools/call per HTTP POST, as a stateless
// client sends it, over loopback with an apify key: the key check and
// admission, the SDK's session for the request, argument validation, the
// in-process REST call, output-schema validation and the SSE answer. It
// reports p50 and p99 per call; compare with the REST handlers' figures
// in bench/RESULTS.md for the same operations.
func BenchmarkToolCall(b *testing.B) {
	e := newEnv(b)
	cases := []struct{ name, body string }{
		{"get_specs_full", toolCall(mcp.ToolSpecs, `{"id":"`+e.raw(0)+`","locale":"de"}`)},
		{"search_catalogue", toolCall(mcp.ToolSearch, `{"query":"`+e.modelName(0)+`","limit":10}`)},
		{"filter_catalogue", toolCall(mcp.ToolFilter, `{"fuel":"diesel","limit":10}`)},
		{"compare_full", toolCall(mcp.ToolCompare, `{"ids":["`+e.raw(0)+`","`+e.raw(1)+`"]}`)},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, 1<<14)
			b.ReportAllocs()
			for b.Loop() {
				t0 := time.Now()
				res, body := e.post(c.body, "Authorization", "Bearer "+e.apify)
				if len(lat) < cap(lat) {
					lat = append(lat, time.Since(t0))
				}
				if res.StatusCode != 200 || strings.Contains(string(body), `"isError":true`) {
					b.Fatalf("%d %.300s", res.StatusCode, body)
				}
			}
			reportLatency(b, lat)
		})
	}
}

func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(p float64) float64 {
		i := min(len(lat)-1, max(0, int(p*float64(len(lat))+0.999999)-1))
		return float64(lat[i].Nanoseconds()) / 1e3
	}
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}
