#!/usr/bin/env bash
# Counts the instructions each BenchmarkHandlers route (httpd/handler_timing_test.go)
# costs per request, under callgrind, for one or more commits: a figure that other
# load does not change, where timing on a shared VM spreads 1.5-4x between rounds
# (bench/RESULTS.md, "The operations layer (issue 15)").
#
#   bench/instr.sh                                 # issue 15: d4c5aa6 (old), e324cc6 (mid), HEAD; all 22 routes
#   ROUTES='variant search' bench/instr.sh d4c5aa6 HEAD
#   REPEAT=2 PROFILES=1 ROUTES=search bench/instr.sh   # each count twice; keep the profiles for callgrind_annotate
#
# Each commit is checked out detached under OUT (/tmp/instr) and its httpd test
# binary built there with one Go toolchain (GOTOOLCHAIN=go1.27.3, so only the
# code differs); commits older than 3ea07dd get that commit's benchmark file
# (the loop on a locked OS thread between two threadCPU calls, see below). Each
# route runs twice, with -test.benchtime N1x (50) and N2x, under
#
#   GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
#     --collect-atstart=no --toggle-collect='*httpd_test.serveOnce' \
#     --zero-before='testing.(*B).ResetTimer' --dump-before='*httpd_test.threadCPU' \
#     BINARY -test.run '^$' -test.bench '^BenchmarkHandlers$/^ROUTE$' -test.benchtime Nx
#
# and the figure is the last dump's instructions over N. Why each piece:
#   - benchRouteOpts locks its thread, calls threadCPU, b.ResetTimer, runs the N
#     requests and calls threadCPU again. Zeroing at ResetTimer and dumping at
#     threadCPU make the last dump exactly the loop: the warm-up request before
#     it, whose cost varies with what the cache-filling goroutines do meanwhile
#     (5e4 instructions, once 1.4e8), and the b.N=1 round are left out.
#   - --toggle-collect counts only inside serveOnce (not inlined: check with
#     `go tool objdump -s benchRouteOpts`); callgrind keeps the toggle per
#     thread and the loop holds its thread, so the runtime's other threads
#     (sysmon, the GC's workers, the server's goroutines) are not counted, nor
#     the catalogue generation (1e9 instructions).
#   - N2 is chosen from the first commit's N1 run so that it counts about
#     TARGET (1e8) instructions, and kept for the route's other commits. The N1
#     run is a second process of the same binary: its figure is the repeat
#     (the "N1 vs N2" column; they agree to 0.4 % or better).
#   - asyncpreemptoff: callgrind aborts on Go's preemption signal (threads.c:247,
#     "Assertion 'sigNum == vgCallgrind_current_state.sig' failed"). Sysmon's
#     cooperative preemption remains, about 1e3 instructions per 10 ms of
#     valgrind's wall time (under 0.1 %).
#   - GOGC=off: no collection during the loop, so the figure is the handler's own
#     work, allocation included. What a collection would add is in proportion to
#     the bytes allocated per request, the B/op column (the benchmark's own figure
#     at N2; a few bytes on a route of 0 allocs/op are other goroutines'). Set
#     GOGC=100 to count with the collector on: mark assists inside serveOnce are
#     then counted, the background mark workers (other threads) not.
#
# Prints a Markdown table, instructions per request for each commit (each
# REPEAT) and the change of the mean against the first commit; every run's
# figures go to OUT/instr.tsv. One run is 15-40 s (valgrind is about 50x
# slower, and the catalogue is generated twice per run); all 22 routes for
# three commits took 30 minutes on the 2-core VM with other builds running.
# PROFILES=1 keeps each loop's profile as OUT/SHA-ROUTE-N-TAG.loop.cg; for
# callgrind_annotate's line view, check the commit out again at OUT/src-SHA
# (the profile names its files there). Needs valgrind (`apt-get install -y valgrind`).
set -euo pipefail

N1=${N1:-50}
N2=${N2:-}
TARGET=${TARGET:-100000000}
REPEAT=${REPEAT:-1}
OUT=${OUT:-/tmp/instr}
GOGC_RUN=${GOGC:-off}
ROUTES=${ROUTES:-variant-uncached specs-de-uncached variant specs-en specs-de specs-ar-imperial images brands models generation-variants filter-2-uncached filter-2 filter-3-uncached filter-3 search-uncached search search-typo-uncached search-typo compare-4-uncached compare-4 specs-gzip-cached specs-304}
if [ $# -eq 0 ]; then
	set -- d4c5aa6 e324cc6 HEAD
fi

if ! command -v valgrind >/dev/null; then
	echo "instr.sh: valgrind is missing; install it with: apt-get install -y valgrind" >&2
	exit 1
fi
root=$(git rev-parse --show-toplevel)
mkdir -p "$OUT"

# build COMMIT: the httpd test binary at COMMIT, as OUT/SHA.test.
build() {
	local sha=$1 src=$OUT/src-$1
	if [ -x "$OUT/$sha.test" ]; then
		return
	fi
	git -C "$root" worktree remove --force "$src" 2>/dev/null || rm -rf "$src"
	git -C "$root" worktree add --quiet --detach "$src" "$sha"
	if ! grep -q LockOSThread "$src/httpd/handler_timing_test.go"; then
		git -C "$root" show 3ea07dd:httpd/handler_timing_test.go >"$src/httpd/handler_timing_test.go"
	fi
	(cd "$src" && GOTOOLCHAIN=go1.27.3 go test -c -o "$OUT/$sha.test" ./httpd/)
	git -C "$root" worktree remove --force "$src"
}

# count SHA ROUTE N TAG: the instructions of the benchmark loop of N requests
# (the last dump); leaves the benchmark's output in OUT/SHA-ROUTE-N-TAG.txt.
count() {
	local base=$OUT/$1-$2-$3-$4 last i
	rm -f "$base".cg*
	GOMAXPROCS=1 GOGC=$GOGC_RUN GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
		--collect-atstart=no --toggle-collect='*httpd_test.serveOnce' \
		--zero-before='testing.(*B).ResetTimer' --dump-before='*httpd_test.threadCPU' \
		--callgrind-out-file="$base.cg" --log-file="$base.vg" \
		"$OUT/$1.test" -test.run '^$' -test.bench "^BenchmarkHandlers\$/^$2\$" -test.benchtime "$3x" >"$base.txt"
	last=""
	for ((i = 1; ; i++)); do
		[ -e "$base.cg.$i" ] || break
		last=$base.cg.$i
	done
	if ! grep -q "^BenchmarkHandlers/$2 " "$base.txt" || [ -z "$last" ]; then
		echo "instr.sh: $1 $2 N=$3 did not run or dumped nothing (no threadCPU?); see $base.txt and $base.vg" >&2
		exit 1
	fi
	sed -n 's/^totals: //p' "$last"
	[ "${PROFILES:-}" ] && mv "$last" "$base.loop.cg"
	rm -f "$base".cg "$base".cg.*
}

shas=()
for c in "$@"; do
	shas+=("$(git -C "$root" rev-parse --short "$c^{commit}")")
done
for sha in "${shas[@]}"; do
	build "$sha"
done

tsv=$OUT/instr.tsv
[ -s "$tsv" ] || printf 'commit\troute\tgogc\tn1\tloop1\tn2\tloop2\tper_request_n1\tper_request_n2\tB_op/allocs_op\trun\n' >"$tsv"
declare -A per mem spread
for route in $ROUTES; do
	n2=$N2
	spread[$route]=0
	for sha in "${shas[@]}"; do
		figs=""
		for r in $(seq "$REPEAT"); do
			l1=$(count "$sha" "$route" "$N1" "$r")
			if [ -z "$n2" ]; then
				# About TARGET instructions, in hundreds of requests; the same N2
				# for every commit and repeat of the route.
				n2=$(awk -v l="$l1" -v n="$N1" -v t="$TARGET" 'BEGIN {d = int(t / (l / n) / 100 + 0.5) * 100; print ((d < 100) ? 100 : d)}')
			fi
			l2=$(count "$sha" "$route" "$n2" "$r")
			p1=$(awk -v l="$l1" -v n="$N1" 'BEGIN {printf "%.0f", l / n}')
			p2=$(awk -v l="$l2" -v n="$n2" 'BEGIN {printf "%.0f", l / n}')
			spread[$route]=$(awk -v a="$l1" -v n="$N1" -v b="$l2" -v m="$n2" -v s="${spread[$route]}" 'BEGIN {d = (a / n - b / m) * 100 / (b / m); if (d < 0) d = -d; printf "%.2f", (d > s ? d : s)}')
			# B/op and allocs/op as the benchmark reports them at N2.
			m=$(awk '{for (i = 1; i < NF; i++) if ($(i+1) == "B/op") b = $i; else if ($(i+1) == "allocs/op") a = $i} END {print b "/" a}' "$OUT/$sha-$route-$n2-$r.txt")
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$sha" "$route" "$GOGC_RUN" "$N1" "$l1" "$n2" "$l2" "$p1" "$p2" "$m" "$r" >>"$tsv"
			figs+="${figs:+ / }$p2"
			mem[$sha,$route]=$m
		done
		per[$sha,$route]=$figs
		echo "$sha $route: $figs instructions per request at N=$n2 ($p1 at N=$N1; B/op/allocs/op $m)" >&2
	done
done

# The table: instructions per request (each repeat), and each commit against
# the first.
printf '\n| route |'
for sha in "${shas[@]}"; do printf ' %s |' "$sha"; done
for sha in "${shas[@]:1}"; do printf ' %s vs %s |' "$sha" "${shas[0]}"; done
printf ' N1 vs N2 (largest) | B/op / allocs/op |\n|---|'
for _ in "${shas[@]}" "${shas[@]:1}" 1; do printf -- '---:|'; done
printf -- '---|\n'
for route in $ROUTES; do
	printf '| %s |' "$route"
	for sha in "${shas[@]}"; do printf ' %s |' "${per[$sha,$route]}"; done
	for sha in "${shas[@]:1}"; do
		# The change of the mean over the repeats.
		awk -v a="${per[${shas[0]},$route]}" -v c="${per[$sha,$route]}" 'function mean(s, f, n, i, t) {n = split(s, f, " / "); for (i = 1; i <= n; i++) t += f[i]; return t / n}
			BEGIN {printf " %+.1f %% |", (mean(c) - mean(a)) * 100 / mean(a)}'
	done
	printf ' %s %% |' "${spread[$route]}"
	sep=" "
	for sha in "${shas[@]}"; do printf '%s%s' "$sep" "${mem[$sha,$route]}"; sep=" / "; done
	printf ' |\n'
done
