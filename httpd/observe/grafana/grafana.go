// Package grafana holds a sample Grafana dashboard of the service's
// metrics (dashboard.json: requests, errors, latency, problems by kind,
// caches, payments, key flow, reloads, the catalogue served, the runtime),
// embedded so that a test can check every series it charts exists.
package grafana

import _ "embed"

// Dashboard is the dashboard's JSON, to import into Grafana.
//
//go:embed dashboard.json
var Dashboard []byte
