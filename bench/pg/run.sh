#!/usr/bin/env bash
# The database peer of the load run (issue 6): the typeahead and filter
# queries of the load mix, run by pgbench against PostgreSQL over the same
# catalogue rows, at the same concurrency and for the same duration.
#
#   1. PostgreSQL is installed from Debian's packages when no server binaries
#      are found (apt-get install -y postgresql postgresql-contrib);
#   2. `go run ./bench/cmd/pgtsv` writes the default catalogue's 103,372
#      variant rows (id, folded search text, fuel, body, drive, power_hp,
#      price, years) and one pgbench script per route (search prefixes,
#      search typos, filter fuel+power, filter fuel+power+body), drawing
#      each transaction's parameters from the mix's fixed lists;
#   3. a throwaway cluster (UTF8, C.UTF-8, loopback only, a free port) loads
#      them, creates pg_trgm's GIN index on the search text and B-tree
#      indexes on every filter column, prints each query's plan, and runs
#      `pgbench -n -c $CONCURRENCY -j $THREADS -T $DURATION -f <script>`
#      for each script after a 1 s warm-up;
#   4. tps, mean latency and p50/p99 (from pgbench's per-transaction log)
#      go to bench/out/pg.json, which BenchmarkLoad reads to print our
#      routes beside the database query alone;
#   5. the cluster is stopped and removed.
#
# Run from anywhere, as root (the server runs as user postgres through
# runuser) or as a user who may run initdb:
#
#   bench/pg/run.sh                          # 32 clients, 3 s per query
#   CONCURRENCY=32 DURATION=10 bench/pg/run.sh
#
# Environment: CONCURRENCY (32, as -bench.concurrency), DURATION (seconds,
# 3, as -bench.duration), THREADS (pgbench -j, 2), PGPORT (default: the
# first free port from 5433), PGBIN (default: /usr/lib/postgresql/15/bin,
# else the newest installed), OUT (default bench/out/pg.json), JIT (off; on
# lets PostgreSQL JIT-compile the costly search plans), SCALE (1; a smaller
# catalogue for a quick trial of the script, not comparable).
set -euo pipefail
export GOTOOLCHAIN="${GOTOOLCHAIN:-go1.27.3}" # go.mod needs Go 1.27.3; the go command fetches it from the module proxy

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
conc="${CONCURRENCY:-32}"
dur="${DURATION:-3}"
threads="${THREADS:-2}"
out="${OUT:-$repo/bench/out/pg.json}"
jit="${JIT:-off}"
# shellcheck source=cluster.sh
. "$here/cluster.sh"

echo "== PostgreSQL"
pg_bin pgbench

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port="${PGPORT:-}"
if [ -z "$port" ]; then
  port=5433
  while ! port_free "$port"; do port=$((port + 1)); done
fi

D="$(mktemp -d)"
chmod 755 "$D"
PID=""
trap pg_cleanup EXIT

echo "== variants.tsv and the pgbench scripts (go run ./bench/cmd/pgtsv)"
(cd "$repo" && go run ./bench/cmd/pgtsv -o "$D/in" -scale "${SCALE:-1}")

mkdir "$D/data" "$D/log"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$D/data" "$D/log" && chmod 777 "$D/log"
as_pg "$PGBIN/initdb" -D "$D/data" -E UTF8 --locale=C.UTF-8 -A trust -U postgres >/dev/null
as_pg "$PGBIN/pg_ctl" -D "$D/data" -l "$D/log/server.log" -w \
  -o "-p $port -c listen_addresses=127.0.0.1 -k $D/data -c max_connections=$((conc + 20)) -c shared_buffers=256MB -c jit=$jit" start >/dev/null
PID="$(head -1 "$D/data/postmaster.pid")"
echo "cluster on 127.0.0.1:$port (pid $PID), data in $D/data"

psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres "$@" postgres; }

echo "== loading and indexing"
t0=$(date +%s.%N)
(cd "$D/in" && psql) <<'SQL'
CREATE EXTENSION pg_trgm;
CREATE TABLE variants (
  id int PRIMARY KEY,
  text text NOT NULL,
  fuel text,
  body text,
  drive text,
  power_hp int,
  price_eur int,
  year_start int,
  year_end int
);
\copy variants FROM 'variants.tsv'
CREATE INDEX variants_text_trgm ON variants USING gin (text gin_trgm_ops);
CREATE INDEX variants_fuel ON variants (fuel);
CREATE INDEX variants_body ON variants (body);
CREATE INDEX variants_drive ON variants (drive);
CREATE INDEX variants_power_hp ON variants (power_hp);
CREATE INDEX variants_price_eur ON variants (price_eur);
CREATE INDEX variants_years ON variants (year_start, year_end);
VACUUM ANALYZE variants;
ALTER DATABASE postgres SET pg_trgm.word_similarity_threshold = 0.5;
SQL
t1=$(date +%s.%N)
rows="$(psql -At -c 'SELECT count(*) FROM variants')"
version="$(psql -At -c 'SHOW server_version' | awk '{print "PostgreSQL " $1}')"
printf '%s rows loaded and indexed in %s s; %s\n' "$rows" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" \
  "$(psql -At -c "SELECT 'table ' || pg_size_pretty(pg_table_size('variants')) || ', GIN ' || pg_size_pretty(pg_relation_size('variants_text_trgm')) || ', all indexes ' || pg_size_pretty(pg_indexes_size('variants'))")"

queries=()
while IFS=$'\t' read -r script route; do
  name="${script%.sql}"
  echo
  echo "== $route ($script)"
  sed -n '2p' "$D/in/$script" | cut -c1-300
  # The plan of the list's first case, with its row count and time.
  psql -c "SHOW pg_trgm.word_similarity_threshold" -At | sed 's/^/word_similarity_threshold = /'
  sed -e '/^\\set/d' -e 's/\[:i\]/[1]/g' -e 's/^/EXPLAIN (ANALYZE, COSTS OFF) /' "$D/in/$script" | psql
  pgb=("$PGBIN/pgbench" -n -h 127.0.0.1 -p "$port" -U postgres -c "$conc" -j "$threads" -M simple -f "$D/in/$script")
  "${pgb[@]}" -T 1 postgres >/dev/null 2>&1 || true # warm-up
  (cd "$D/log" && "${pgb[@]}" -T "$dur" -l --log-prefix="$D/log/$name" postgres) 2>&1 | tee "$D/log/$name.out"
  res="$D/log/$name.out"
  tps="$(sed -nE 's/^tps = ([0-9.]+) .*/\1/p' "$res" | head -1)"
  avg="$(sed -nE 's/^latency average = ([0-9.]+) ms.*/\1/p' "$res" | head -1)"
  txs="$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$res" | head -1)"
  failed="$(sed -nE 's/^number of failed transactions: ([0-9]+).*/\1/p' "$res" | head -1)"
  # pgbench -l: client, transaction, latency in µs, script, epoch s, µs.
  read -r p50 p99 < <(cat "$D/log/$name".[0-9]* | awk '{print $3}' | sort -n | awk '
    { v[NR] = $1 }
    END {
      if (NR == 0) { print "0 0"; exit }
      i50 = int(0.50 * NR) + 1; if (i50 > NR) i50 = NR
      i99 = int(0.99 * NR) + 1; if (i99 > NR) i99 = NR
      printf "%.3f %.3f\n", v[i50] / 1000, v[i99] / 1000
    }')
  echo "-> $route: $tps tps, latency mean $avg ms, p50 $p50 ms, p99 $p99 ms"
  queries+=("$(printf '{"route": "%s", "script": "%s", "tps": %s, "transactions": %s, "failed": %s, "latency_avg_ms": %s, "p50_ms": %s, "p99_ms": %s}' \
    "$route" "$script" "${tps:-0}" "${txs:-0}" "${failed:-0}" "${avg:-0}" "$p50" "$p99")")
done <"$D/in/scripts.tsv"

mkdir -p "$(dirname "$out")"
{
  printf '{\n  "version": "%s",\n  "rows": %s,\n  "concurrency": %s,\n  "threads": %s,\n  "duration_s": %s,\n  "protocol": "simple",\n  "date": "%s",\n  "queries": [\n' \
    "$version" "$rows" "$conc" "$threads" "$dur" "$(date -u +%FT%TZ)"
  for i in "${!queries[@]}"; do
    sep=","; [ "$i" = $((${#queries[@]} - 1)) ] && sep=""
    printf '    %s%s\n' "${queries[$i]}" "$sep"
  done
  printf '  ]\n}\n'
} >"$out"
echo
echo "wrote $out"
cat "$out"
