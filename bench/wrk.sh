#!/usr/bin/env bash
# Drives the catalogue server with wrk (Debian's package, installed with
# apt-get when missing), with the ids and query lists discovered through the
# API by `go run ./bench/cmd/loadmix`.
#
#   bench/wrk.sh                                    # the pinned table (issue 20), below
#   SCALE=0.05 REPEAT=1 bench/wrk.sh                # the same, quickly, on a small catalogue
#   TARGET=host:port KEY=vsc_free_... bench/wrk.sh  # an external server: wrk's output per route
#
# The pinned table (without TARGET). It builds cmd/catalogued,
# cmd/catalogue and bench/cmd/static into bench/out/bin, uses the snapshot
# SNAPSHOT, or one generated with `catalogue gen -scale SCALE` when SCALE is
# set, or the default full catalogue at bench/out/catalogue.snap (generated
# when missing, 20 s), creates a key of plan PLAN (free) in a throwaway state
# directory and starts catalogued with that plan's limits raised to 2^31
# (-limits.PLAN), with GOMAXPROCS=1 and pinned to core SERVER_CORE (1)
# with taskset. The routes are bench.PinnedMix (loadmix -pinned): the load
# mix, a model's generations, images, prices, the spec catalogue, "search
# cached" (the first page of one query, a search cache hit after the first)
# and "search uncached" (QUERIES phrases, 266, made of brand and model
# names, in turn). The static twin (bench/cmd/static), pinned and
# GOMAXPROCS=1 the same way, captures every path of every route from that
# catalogued and replays the exact status, headers and body.
#
# For each route it runs REPEAT pairs (25) of wrk -t1 -cCONNS -dDURATION
# (1s) pinned to core CLIENT_CORE (0): one run against the static twin and
# one against catalogued, back to back, the static twin first in odd pairs
# and second in even ones (a WARMUP run of each, 1s, comes first,
# unmeasured). It reads the process CPU time of the server driven
# (utime+stime of /proc/PID/stat, in clock ticks of `getconf CLK_TCK`)
# before and after each run. A route with several paths sends them in turn
# from a Lua script; every request carries X-Api-Key. The ratio it reports
# is the median over the pairs of catalogued req/s over static req/s, with
# its quartiles: on a shared VM the speed of both servers drifts by 10-20 %
# from one second to the next (bench/RESULTS.md), and the two runs of a pair
# share the moment's conditions, so many short pairs give a steadier median
# than few long runs (the ratio of the two servers' median req/s is shown
# too). A pair's ratio spreads with a standard deviation of about 0.1, so
# the median of 15 pairs still moved by about 0.03 from run to run; 25
# pairs narrow that by a quarter. It prints a Markdown table: static and catalogued median req/s, the
# ratio, its quartiles, the ratio of medians, each server's median CPU µs
# per request (CPU time over the requests wrk completed) and its core use
# (CPU time over wall time: under 100 % the server was not what limited the
# run), and the machine's steal time during the runs (/proc/stat: the
# hypervisor running others while this VM wanted the CPU; the host's other
# interference, on shared caches and memory, shows in neither figure, only
# in the spread of the pairs). The table also goes to bench/out/wrk-pinned.tsv, every run to
# bench/out/wrk-pinned-runs.tsv. Both servers stay up during a route's runs
# (the one not driven is idle).
#
# "search uncached" runs against a second catalogued on the same snapshot
# and state, started after the first is stopped, with the search cache off
# (-http.searchCacheBytes -1), and its own static twin captured from it; the
# other routes run against the first, with the default cache.
#
# Environment: SNAPSHOT, SCALE, PLAN (free), DURATION (1s), WARMUP (1s; 0
# skips), REPEAT (25; a full run takes about 19 minutes), CONNS (32), QUERIES (266), ROUTES (a regular
# expression over route names; default all), SERVER_CORE (1), CLIENT_CORE
# (0), CATALOGUED (a catalogued binary to measure instead of the one built
# from this tree, e.g. another commit's; the static twin is still this
# tree's), CATALOGUED_FLAGS (more flags for catalogued, split on spaces:
# -log.access=false shows what the access log costs). With TARGET (and KEY) it drives that server as before issue 20:
# THREADS (2) wrk threads, no pinning, no static twin, wrk's whole output
# per route; ROUTES defaults there to variant detail, specs de, brands,
# filter fuel+power and search prefixes. An external server's limits must
# allow the run.
set -euo pipefail
export GOTOOLCHAIN="${GOTOOLCHAIN:-go1.27.3}" # go.mod needs Go 1.27.3; the go command fetches it from the module proxy

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
out="$here/out"
duration="${DURATION:-1s}"
conns="${CONNS:-32}"
mkdir -p "$out"

if ! command -v wrk >/dev/null; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y wrk
fi
wrk --version 2>&1 | head -1 || true

tmp="$(mktemp -d)"
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do
    kill -TERM "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT

rss() { awk '/^VmRSS:/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$1/status"; }

# lua ROUTE_LINE KEY FILE writes a wrk script that sets the key and sends the
# route's paths (fields 2.. of a loadmix line) in turn.
lua() {
  local -a f
  IFS=$'\t' read -r -a f <<<"$1"
  {
    printf 'wrk.headers["X-Api-Key"] = "%s"\n' "$2"
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
  } >"$3"
}

# The way it was before issue 20: any server, wrk's whole output.
if [ -n "${TARGET:-}" ]; then
  target="$TARGET"
  key="${KEY:-}"
  threads="${THREADS:-2}"
  routes="${ROUTES:-^(variant detail|specs de|brands|filter fuel\+power|search prefixes)\$}"
  [ -n "$key" ] || { echo "KEY is required with TARGET" >&2; exit 2; }
  echo "== routes (go run ./bench/cmd/loadmix)"
  (cd "$repo" && go run ./bench/cmd/loadmix -target "$target" -key "$key" -routes "$routes") >"$tmp/mix.tsv"
  cut -f1,2 "$tmp/mix.tsv"
  while IFS= read -r line; do
    name="${line%%$'\t'*}"
    lua "$line" "$key" "$tmp/route.lua"
    n="$(awk -F'\t' '{ print NF - 1 }' <<<"$line")"
    echo
    echo "== $name ($n paths): wrk -t$threads -c$conns -d$duration --latency"
    wrk -t"$threads" -c"$conns" -d"$duration" --latency -s "$tmp/route.lua" "http://$target"
  done <"$tmp/mix.tsv"
  exit 0
fi

# The pinned table.
plan="${PLAN:-free}"
warmup="${WARMUP:-1s}"
repeat="${REPEAT:-25}"
queries="${QUERIES:-266}"
routes="${ROUTES:-.}"
score="${SERVER_CORE:-1}"
ccore="${CLIENT_CORE:-0}"
tck="$(getconf CLK_TCK)"

catalogued="${CATALOGUED:-$out/bin/catalogued}"
echo "== building catalogued, catalogue and static${CATALOGUED:+ (measuring $CATALOGUED instead of this catalogued)}"
(cd "$repo" && go build -o "$out/bin/catalogued" ./cmd/catalogued && go build -o "$out/bin/catalogue" ./cmd/catalogue &&
  go build -o "$out/bin/static" ./bench/cmd/static)
if [ -n "${SNAPSHOT:-}" ]; then
  snap="$SNAPSHOT"
elif [ -n "${SCALE:-}" ]; then
  snap="$out/catalogue-$SCALE.snap"
else
  snap="$out/catalogue.snap"
fi
if [ ! -f "$snap" ]; then
  "$out/bin/catalogue" gen -scale "${SCALE:-1}" -o "$snap"
fi
key="$("$out/bin/catalogue" keys create -state "$tmp/state" -plan "$plan" -allow-deprecated -email bench@example.org -note wrk | tail -1)"

freeport() {
  local port=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  echo "$port"
}

# start NAME ADDR LOG CMD... starts CMD pinned to the server core with
# GOMAXPROCS=1 and waits until ADDR answers /v1/health (catalogued) or
# accepts connections (static); sets PID.
start() {
  local name=$1 addr=$2 log=$3
  shift 3
  GOMAXPROCS=1 taskset -c "$score" "$@" >"$log" 2>&1 &
  PID=$!
  PIDS+=("$PID")
  for _ in $(seq 1 600); do
    if [ "$name" = catalogued ]; then
      curl -fsS "http://$addr/v1/health" >/dev/null 2>&1 && return 0
    elif (exec 3<>"/dev/tcp/${addr%:*}/${addr##*:}") 2>/dev/null; then
      return 0
    fi
    kill -0 "$PID" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.1
  done
  echo "$name did not come up on $addr" >&2
  cat "$log" >&2
  exit 1
}

stop() {
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

cputicks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

n=2000000000
# catalogued_up [FLAGS...] starts catalogued on the snapshot; sets CAT and CAT_ADDR.
catalogued_up() {
  CAT_ADDR="127.0.0.1:$(freeport 18080)"
  start catalogued "$CAT_ADDR" "$tmp/catalogued.log" "$catalogued" -listen "$CAT_ADDR" -admin.listen "" -mcp.listen "" \
    -state "$tmp/state" -snapshot "$snap" "-limits.$plan" "$n,$n,$n" ${CATALOGUED_FLAGS:-} "$@"
  CAT=$PID
  echo "catalogued on $CAT_ADDR (pid $CAT, core $score, GOMAXPROCS=1${CATALOGUED_FLAGS:+, $CATALOGUED_FLAGS}${*:+, $*}), RSS after loading: $(rss "$CAT")"
}

# static_up MIXFILE starts the static twin of catalogued for the mix's paths; sets STA and STA_ADDR.
static_up() {
  STA_ADDR="127.0.0.1:$(freeport 18090)"
  start static "$STA_ADDR" "$tmp/static.log" "$out/bin/static" -listen "$STA_ADDR" -target "$CAT_ADDR" -key "$key" -mix "$1"
  STA=$PID
  echo "$(cat "$tmp/static.log") (pid $STA, core $score, GOMAXPROCS=1)"
}

runs="$out/wrk-pinned-runs.tsv"
printf 'route\tpaths\tserver\trun\trequests\treq/s\tcpu_ticks\tcpu_us_per_req\tbytes_per_resp\tcore_use\tsteal\n' >"$runs"

# machineticks: the machine's steal ticks (time the hypervisor ran something
# else while a vCPU wanted to run) and all its ticks, from /proc/stat.
machineticks() { awk '/^cpu / { print $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }

# bytes TOTAL_WITH_UNIT: wrk's "12.34MB" as bytes.
bytes() {
  awk -v s="$1" 'BEGIN { n = s + 0; u = s; sub(/^[0-9.]+/, "", u)
    m = (u == "KB") ? 1024 : (u == "MB") ? 1048576 : (u == "GB") ? 1073741824 : 1; printf "%.0f", n * m }'
}

# drive NAME LINE SERVER ADDR PID RUN: one wrk run, pinned, against ADDR;
# appends a line to the runs file (RUN "warmup" is not kept).
drive() {
  local name=$1 line=$2 server=$3 addr=$4 pid=$5 run=$6 d=$duration
  [ "$run" = warmup ] && d=$warmup
  local np path
  np="$(awk -F'\t' '{ print NF - 1 }' <<<"$line")"
  local -a args=(-t1 -c"$conns" -d"$d")
  if [ "$np" -gt 1 ]; then
    args+=(-s "$tmp/route.lua" "http://$addr")
  else
    path="$(cut -f2 <<<"$line")"
    args+=(-H "X-Api-Key: $key" "http://$addr$path")
  fi
  local t0 t1
  local m0 m1
  m0="$(machineticks)"
  t0="$(cputicks "$pid")"
  taskset -c "$ccore" wrk "${args[@]}" >"$tmp/wrk.out" 2>&1 || { cat "$tmp/wrk.out" >&2; exit 1; }
  t1="$(cputicks "$pid")"
  m1="$(machineticks)"
  [ "$run" = warmup ] && return 0
  local reqs rps read bad
  reqs="$(awk '/ requests in / { print $1 }' "$tmp/wrk.out")"
  rps="$(awk '/^Requests\/sec:/ { print $2 }' "$tmp/wrk.out")"
  read="$(awk '/ requests in / { sub(/ read$/, ""); print $NF }' "$tmp/wrk.out")"
  bad="$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$tmp/wrk.out")"
  if [ -n "$bad" ] || [ -z "$reqs" ] || [ "$reqs" -eq 0 ]; then
    echo "$name: $server: ${bad:-no} non-2xx responses of ${reqs:-0}:" >&2
    cat "$tmp/wrk.out" >&2
    exit 1
  fi
  if grep -q 'Socket errors' "$tmp/wrk.out"; then
    echo "  $name, $server, run $run: $(grep 'Socket errors' "$tmp/wrk.out" | sed 's/^ *//')" >&2
  fi
  awk -v r="$name" -v np="$np" -v s="$server" -v run="$run" -v n="$reqs" -v rps="$rps" -v dt=$((t1 - t0)) -v tck="$tck" -v b="$(bytes "$read")" \
    -v m="$m0 $m1" \
    'BEGIN { split(m, t, " "); steal = (t[4] > t[2]) ? (t[3] - t[1]) / (t[4] - t[2]) : 0
      printf "%s\t%d\t%s\t%s\t%d\t%.0f\t%d\t%.2f\t%.0f\t%.3f\t%.4f\n", r, np, s, run, n, rps, dt, dt * 1e6 / tck / n, b / n, dt / tck * rps / n, steal }' >>"$runs"
}

# measure MIXFILE: every route of the mix, REPEAT pairs of runs.
measure() {
  local line name r
  while IFS= read -r line <&3; do
    name="${line%%$'\t'*}"
    lua "$line" "$key" "$tmp/route.lua"
    if [ "$warmup" != 0 ]; then
      drive "$name" "$line" static "$STA_ADDR" "$STA" warmup
      drive "$name" "$line" catalogued "$CAT_ADDR" "$CAT" warmup
    fi
    for r in $(seq 1 "$repeat"); do
      # A pair, its order alternating (static first in odd pairs): the
      # two runs of a pair share the machine's state of the moment, and
      # neither server always comes first.
      if [ $((r % 2)) -eq 1 ]; then
        drive "$name" "$line" static "$STA_ADDR" "$STA" "$r"
        drive "$name" "$line" catalogued "$CAT_ADDR" "$CAT" "$r"
      else
        drive "$name" "$line" catalogued "$CAT_ADDR" "$CAT" "$r"
        drive "$name" "$line" static "$STA_ADDR" "$STA" "$r"
      fi
    done
    awk -F'\t' -v r="$name" '$1 == r { printf "  %s, %s, run %s: %s req/s, %s CPU µs/req\n", r, $3, $4, $6, $8 }' "$runs" >&2
  done 3<"$1"
}

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "snapshot: $snap; wrk -t1 -c$conns -d$duration on core $ccore, servers on core $score, $repeat pairs of runs per route, alternating"
catalogued_up
echo "== routes (go run ./bench/cmd/loadmix -pinned -queries $queries)"
(cd "$repo" && go run ./bench/cmd/loadmix -pinned -queries "$queries" -target "$CAT_ADDR" -key "$key" -routes "$routes") >"$tmp/mix.tsv"
awk -F'\t' -v u="search uncached" '$1 != u' "$tmp/mix.tsv" >"$tmp/mix-main.tsv"
awk -F'\t' -v u="search uncached" '$1 == u' "$tmp/mix.tsv" >"$tmp/mix-uncached.tsv"
awk -F'\t' '{ printf "%s (%d paths): %s\n", $1, NF - 1, $2 }' "$tmp/mix.tsv"

if [ -s "$tmp/mix-main.tsv" ]; then
  static_up "$tmp/mix-main.tsv"
  measure "$tmp/mix-main.tsv"
  stop "$STA"
fi
echo "catalogued RSS after the runs: $(rss "$CAT")"
stop "$CAT"

if [ -s "$tmp/mix-uncached.tsv" ]; then
  echo "== search uncached: a second catalogued with the search cache off"
  catalogued_up -http.searchCacheBytes -1
  static_up "$tmp/mix-uncached.tsv"
  measure "$tmp/mix-uncached.tsv"
  stop "$STA"
  stop "$CAT"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# One row per route: the median of the pairs' ratios (catalogued req/s
# over static req/s within a pair), its quartiles, and the medians of each
# server's figures (the mean of the middle two of an even count).
table="$out/wrk-pinned.tsv"
awk -F'\t' '
  function sorted(s, a,   n, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n
  }
  function quantile(s, q,   n, a) { n = sorted(s, a); return a[int(q * (n - 1) + 0.5) + 1] }
  function median(s,   n, a) { n = sorted(s, a); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  NR > 1 {
    if (!($1 in seen)) { seen[$1] = 1; order[++m] = $1; np[$1] = $2 }
    rps[$1, $3] = rps[$1, $3] " " $6
    pair[$1, $4, $3] = $6
    cpu[$1, $3] = cpu[$1, $3] " " $8
    use[$1, $3] = use[$1, $3] " " $10
    steal[$1] = steal[$1] " " $11
    if ($3 == "catalogued") by[$1] = by[$1] " " $9
    if (($1, $4, "static") in pair && ($1, $4, "catalogued") in pair) ratios[$1] = ratios[$1] " " pair[$1, $4, "catalogued"] / pair[$1, $4, "static"]
  }
  END {
    print "route\tpaths\tbytes\tstatic_rps\tcatalogued_rps\tratio\tratio_q1\tratio_q3\tratio_of_medians\tcatalogued_cpu_us_per_req\tstatic_cpu_us_per_req\tcatalogued_core_use\tstatic_core_use\tsteal_median\tsteal_max"
    for (i = 1; i <= m; i++) {
      r = order[i]; s = median(rps[r, "static"]); c = median(rps[r, "catalogued"])
      printf "%s\t%d\t%.0f\t%.0f\t%.0f\t%.3f\t%.3f\t%.3f\t%.3f\t%.1f\t%.1f\t%.3f\t%.3f\t%.4f\t%.4f\n", r, np[r], median(by[r]), s, c,
        median(ratios[r]), quantile(ratios[r], 0.25), quantile(ratios[r], 0.75), c / s,
        median(cpu[r, "catalogued"]), median(cpu[r, "static"]), median(use[r, "catalogued"]), median(use[r, "static"]),
        median(steal[r]), quantile(steal[r], 1)
    }
  }' "$runs" >"$table"

echo
echo "| route | paths | bytes/resp | static req/s | catalogued req/s | ratio | quartiles | ratio of medians | catalogued CPU µs/req | static CPU µs/req | core use: catalogued, static | steal: median, max |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
awk -F'\t' 'NR > 1 {
    route = $1; if (route == "search uncached") route = route " (cache off)"
    printf "| %s | %d | %d | %d | %d | **%.0f%%** | %.0f-%.0f%% | %.0f%% | %.1f | %.1f | %.0f%%, %.0f%% | %.1f%%, %.1f%% |\n", route, $2, $3, $4, $5, 100 * $6, 100 * $7, 100 * $8, 100 * $9, $10, $11, 100 * $12, 100 * $13, 100 * $14, 100 * $15
  }' "$table" | sed -E ':a; s/([0-9])([0-9]{3})( |\||,)/\1,\2\3/; ta'
echo
echo "$repeat pairs of runs per route, each pair a static run and a catalogued run back to back (static first in odd pairs);"
echo "ratio: the median of the pairs' ratios (catalogued req/s over static req/s), quartiles: of those ratios; ratio of"
echo "medians: median catalogued req/s over median static req/s; req/s and CPU: medians per server; bytes/resp: what wrk read per"
echo "response, headers included; core use: the server's CPU time over the run's wall time (below 100 %, something else held the"
echo "server back: the client or other work on its core); steal: the share of the machine's CPU time the hypervisor gave to"
echo "others during a run (from /proc/stat), the median and the largest over the route's runs: above a few percent, the"
echo "machine was not quiet"
echo "table: $table, runs: $runs"
