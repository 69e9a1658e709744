package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// PGRun is the database peer's result as bench/pg/run.sh writes it
// (bench/out/pg.json): the same typeahead and filter queries run by
// pgbench against PostgreSQL with pg_trgm GIN and B-tree indexes over the
// same catalogue rows, at the same concurrency.
type PGRun struct {
	Version     string    `json:"version"`     // SELECT version(), shortened
	Rows        int       `json:"rows"`        // rows of the variants table
	Concurrency int       `json:"concurrency"` // pgbench -c
	Threads     int       `json:"threads"`     // pgbench -j
	DurationS   int       `json:"duration_s"`  // pgbench -T
	Protocol    string    `json:"protocol"`    // pgbench -M
	Date        string    `json:"date"`
	Queries     []PGQuery `json:"queries"`
}

// PGQuery is pgbench's figures for one script; Route names the route of
// the mix that runs the same query.
type PGQuery struct {
	Route        string  `json:"route"`
	Script       string  `json:"script"`
	TPS          float64 `json:"tps"`
	Transactions int     `json:"transactions"`
	Failed       int     `json:"failed"`
	LatencyAvgMs float64 `json:"latency_avg_ms"`
	P50Ms        float64 `json:"p50_ms"` // from pgbench's per-transaction log
	P99Ms        float64 `json:"p99_ms"`
}

// ReadPG reads the database peer's result; a missing file is no result
// and no error.
func ReadPG(path string) (*PGRun, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r PGRun
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	return &r, nil
}

// Query returns the peer's figures for route, nil when it has none.
func (r *PGRun) Query(route string) *PGQuery {
	if r == nil {
		return nil
	}
	for i := range r.Queries {
		if r.Queries[i].Route == route {
			return &r.Queries[i]
		}
	}
	return nil
}
