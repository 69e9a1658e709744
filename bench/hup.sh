#!/usr/bin/env bash
# Memory and CPU of catalogued across a burst of SIGHUPs (issue 35, item 8).
#
#   bench/hup.sh                                  # this tree's catalogued, the full catalogue, 50 signals
#   CATALOGUED=/path/to/catalogued bench/hup.sh   # another build, e.g. another commit's
#
# It builds cmd/catalogued into bench/out/bin (unless CATALOGUED names a
# binary), uses the snapshot SNAPSHOT or the default full catalogue at
# bench/out/catalogue.snap (generated when missing, 20 s), starts catalogued
# on it in a throwaway state directory (no admin or MCP listener, no keys)
# and waits until it serves and SETTLE seconds (5) more. It reads VmRSS, then
# sends N SIGHUPs (50), GAP seconds apart (0.02: spaced, so that the kernel
# does not merge them, as `for i in $(seq 50); do kill -HUP $PID; done`
# spaces them), waits until no reload has finished for QUIET seconds (10),
# and reads VmRSS again, VmHWM (the peak), the reloads the log reports and
# the process CPU time the burst took (utime+stime of /proc/PID/stat). It
# reads VmRSS once more AFTER seconds (30) later, and prints one line.
set -euo pipefail
export GOTOOLCHAIN="${GOTOOLCHAIN:-go1.27.3}" # go.mod needs Go 1.27.3; the go command fetches it from the module proxy
cd "$(dirname "$0")/.."
N=${N:-50} GAP=${GAP:-0.02} SETTLE=${SETTLE:-5} QUIET=${QUIET:-10} AFTER=${AFTER:-30}
mkdir -p bench/out/bin
bin=${CATALOGUED:-}
if [ -z "$bin" ]; then
	go build -o bench/out/bin/catalogued ./cmd/catalogued
	bin=bench/out/bin/catalogued
fi
snap=${SNAPSHOT:-bench/out/catalogue.snap}
if [ ! -e "$snap" ]; then
	go run ./cmd/catalogue gen -o "$snap"
fi
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" -listen "127.0.0.1:$port" -snapshot "$snap" -state "$tmp/state" -admin.listen "" -mcp.listen "" \
	-keys.bootstrap=false -log.format text 2>"$tmp/log" &
pid=$!
until grep -q "serving http://" "$tmp/log"; do
	kill -0 "$pid" || { cat "$tmp/log"; exit 1; }
	sleep 0.2
done
sleep "$SETTLE"
kib() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$pid/status"; }
cpu() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
reloads() { grep -c "reloaded snapshot" "$tmp/log" || true; }
before=$(kib VmRSS) cpu0=$(cpu)
for _ in $(seq "$N"); do
	kill -HUP "$pid"
	sleep "$GAP"
done
last=-1 still=0
while [ "$still" -lt "$QUIET" ]; do
	sleep 1
	now=$(reloads)
	if [ "$now" = "$last" ]; then still=$((still + 1)); else last=$now still=0; fi
done
after=$(kib VmRSS) peak=$(kib VmHWM) cpu1=$(cpu)
sleep "$AFTER"
later=$(kib VmRSS)
echo "signals $N, reloads $(reloads), released $(grep -c 'is released' "$tmp/log" || true); RSS before $((before / 1024)) MiB, peak $((peak / 1024)) MiB, after $((after / 1024)) MiB, ${AFTER}s later $((later / 1024)) MiB; CPU $(awk -v a="$cpu0" -v b="$cpu1" -v t="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", (b - a) / t }') s"
