#!/usr/bin/env bash
# The tests of the shared Redis access store (build tag redis): the
# conformance suite on a real redis-server, revoke propagation, Redis
# killed and restarted, the keys CLI on Redis, and two catalogued replicas
# on one Redis. Each test starts its own redis-server on a free loopback
# port in a temporary directory. .ci/run installs redis-server first.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v redis-server >/dev/null || { echo "redis-server is not installed (apt-get install -y redis-server)"; exit 1; }
redis-server --version
go vet -tags redis ./httpd/redisstore/... ./httpd/state/... ./cmd/catalogue ./cmd/catalogued
go test -count=1 -tags redis ./httpd/redisstore/... ./httpd/state/...
go test -count=1 -tags redis -run 'Redis' ./cmd/catalogue ./cmd/catalogued
go test -count=1 -race -tags redis ./httpd/redisstore/
