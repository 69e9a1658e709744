#!/usr/bin/env bash
# The fleet harness (issue 18, item 6): redis-server, three catalogued
# replicas following the fleet's catalogue and HAProxy on loopback, the
# access-state checks and a snapshot rollout under load. Needs
# redis-server and haproxy (Debian: apt-get install -y redis-server haproxy;
# .ci/run installs them). Each run builds the binaries and starts
# everything in a temporary directory on free ports; a run takes 35-80 s
# on the 2-core development machine, and -timeout stops a hung one.
set -euo pipefail
export GOTOOLCHAIN="${GOTOOLCHAIN:-go1.27.3}" # go.mod needs Go 1.27.3; the go command fetches it from the module proxy
cd "$(dirname "$0")/../.."
for cmd in redis-server haproxy; do
  command -v "$cmd" >/dev/null || { echo "$cmd is not installed (apt-get install -y redis-server haproxy)"; exit 1; }
done
redis-server --version
# sed reads all of haproxy's output: with head, haproxy could die of
# SIGPIPE after head exited and pipefail would end the run (141).
haproxy -v | sed -n 1p
go vet -tags cluster ./bench/cluster
go test -count=1 -tags cluster -timeout 5m -v ./bench/cluster "$@"
