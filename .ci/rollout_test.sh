#!/usr/bin/env bash
# The fleet rollout (issue 18, item 5) against a real redis-server: the
# Go tests behind the redis build tag, which start redis-server on a free
# loopback port in a temporary directory, two catalogued replicas and the
# catalogue CLI as binaries, publish, roll back and refuse a corrupt file
# under load. .ci/run calls it; it installs redis-server (Debian's package)
# when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v redis-server >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi
redis-server --version
# The package's service is not needed: each test runs its own server.
go test -count=1 -tags redis ./loader/rollout/... -run 'Redis'
go test -count=1 -tags redis ./cmd/catalogued -run 'Fleet'
# The convergence figure, once (bench/RESULTS.md records longer runs).
go test -count=1 -tags redis ./cmd/catalogued -run '^$' -bench FleetConvergence -benchtime 3x
