#!/usr/bin/env bash
# The fleet's tests on a real redis-server (build tag redis): the access
# store's conformance suite (the same table as the embedded store), revoke
# propagation, Redis killed and restarted (and /readyz following it), TLS
# with the URL's ca= authority, a Redis Cluster node refused, the keys and
# payments CLI on Redis, two catalogued replicas on one Redis and one over
# TLS; and the snapshot rollout:
# publish, roll back and refuse a corrupt file under load, with the
# convergence figure once (bench/RESULTS.md records longer runs). Each test
# starts its own redis-server on a free loopback port in a temporary
# directory. .ci/run installs redis-server first (Debian's package; its
# service is not needed).
set -euo pipefail
export GOTOOLCHAIN="${GOTOOLCHAIN:-go1.27.3}" # go.mod needs Go 1.27.3; the go command fetches it from the module proxy
cd "$(dirname "$0")/.."
command -v redis-server >/dev/null || { echo "redis-server is not installed (apt-get install -y redis-server)"; exit 1; }
redis-server --version
go vet -tags redis ./httpd/redisstore/... ./httpd/state/... ./loader/rollout/... ./cmd/catalogue ./cmd/catalogued
go test -count=1 -tags redis ./httpd/redisstore/... ./httpd/state/... ./loader/rollout/...
go test -count=1 -tags redis -run 'Redis|Fleet|TLS' ./cmd/catalogue ./cmd/catalogued
go test -count=1 -race -tags redis ./httpd/redisstore/ ./loader/rollout/
go test -count=1 -tags redis ./cmd/catalogued -run '^$' -bench FleetConvergence -benchtime 3x
