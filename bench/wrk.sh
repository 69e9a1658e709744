#!/usr/bin/env bash
# Drives the catalogue server with wrk (Debian's package, installed with
# apt-get when missing) on a few routes of the load mix, with the same ids
# and query lists as BenchmarkLoad (discovered through the API by
# `go run ./bench/cmd/loadmix`), and prints wrk's output for each route. A
# Lua script per route sets X-Api-Key and sends the route's paths in turn.
#
#   bench/wrk.sh                                    # builds and starts its own catalogued
#   TARGET=host:port KEY=vsc_free_... bench/wrk.sh  # an external server
#
# Without TARGET it builds cmd/catalogued and cmd/catalogue into
# bench/out/bin, generates the default snapshot at bench/out/catalogue.snap
# when missing (SNAPSHOT overrides the path), creates a free key in a
# throwaway state directory, starts catalogued on a free loopback port with
# limits raised for the run (-limits.free), prints its RSS before and after,
# and stops it. An external server's limits must allow the run.
#
# Environment: TARGET, KEY, DURATION (wrk -d, 5s), CONNS (wrk -c, 32),
# THREADS (wrk -t, 2), ROUTES (a regular expression over route names;
# default variant detail, specs de, brands, filter fuel+power, search
# prefixes).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
out="$here/out"
duration="${DURATION:-5s}"
conns="${CONNS:-32}"
threads="${THREADS:-2}"
routes="${ROUTES:-^(variant detail|specs de|brands|filter fuel\+power|search prefixes)\$}"
mkdir -p "$out"

if ! command -v wrk >/dev/null; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y wrk
fi
wrk --version 2>&1 | head -1 || true

tmp="$(mktemp -d)"
SERVER=""
cleanup() {
  if [ -n "$SERVER" ]; then
    kill -TERM "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

rss() { awk '/^VmRSS:/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$1/status"; }

target="${TARGET:-}"
key="${KEY:-}"
if [ -z "$target" ]; then
  echo "== building catalogued and catalogue"
  (cd "$repo" && go build -o "$out/bin/catalogued" ./cmd/catalogued && go build -o "$out/bin/catalogue" ./cmd/catalogue)
  snap="${SNAPSHOT:-$out/catalogue.snap}"
  if [ ! -f "$snap" ]; then
    "$out/bin/catalogue" gen -o "$snap"
  fi
  key="$("$out/bin/catalogue" keys create -state "$tmp/state" -plan free -allow-deprecated -email bench@example.org -note wrk | tail -1)"
  port=18080
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  target="127.0.0.1:$port"
  n=2000000000
  "$out/bin/catalogued" -listen "$target" -admin.listen "" -mcp.listen "" -state "$tmp/state" -snapshot "$snap" \
    -limits.free "$n,$n,$n" >"$tmp/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 300); do
    curl -fsS "http://$target/v1/health" >/dev/null 2>&1 && break
    kill -0 "$SERVER" 2>/dev/null || { cat "$tmp/server.log"; exit 1; }
    sleep 0.1
  done
  echo "catalogued on $target (pid $SERVER), RSS after loading: $(rss "$SERVER")"
fi
[ -n "$key" ] || { echo "KEY is required with TARGET" >&2; exit 2; }

echo "== routes (go run ./bench/cmd/loadmix)"
(cd "$repo" && go run ./bench/cmd/loadmix -target "$target" -key "$key" -routes "$routes") >"$tmp/mix.tsv"
cut -f1,2 "$tmp/mix.tsv"

while IFS= read -r line; do
  IFS=$'\t' read -r -a f <<<"$line"
  name="${f[0]}"
  lua="$tmp/route.lua"
  {
    printf 'wrk.headers["X-Api-Key"] = "%s"\n' "$key"
    printf 'local paths = {\n'
    for p in "${f[@]:1}"; do printf '  "%s",\n' "$p"; done
    printf '}\n'
    cat <<'LUA'
local i = math.random(#paths) - 1
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
LUA
  } >"$lua"
  echo
  echo "== $name ($(( ${#f[@]} - 1 )) paths): wrk -t$threads -c$conns -d$duration --latency"
  wrk -t"$threads" -c"$conns" -d"$duration" --latency -s "$lua" "http://$target"
done <"$tmp/mix.tsv"

if [ -n "$SERVER" ]; then
  echo
  echo "catalogued RSS after the runs: $(rss "$SERVER")"
fi
