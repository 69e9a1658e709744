#!/usr/bin/env bash
# Regenerates the PostgreSQL parity fixture of package index/trigram:
#
#   1. texts.tsv (row<TAB>folded text, 103,372 rows, not committed) and
#      queries.tsv (qid<TAB>folded query) from the Go generator, through
#      `go test -run TestWriteFixtureInputs -update`;
#   2. a throwaway PostgreSQL 15 cluster (UTF8, C.UTF-8, loopback only) loads
#      both, creates pg_trgm and a GIN index, and writes the top 10 of every
#      query under `q <% name` at word_similarity_threshold 0.5 and 0.3 to
#      expected_word_0.5.tsv and expected_word_0.3.tsv (qid, row, score as
#      float8), plus the EXPLAIN ANALYZE time of 20 typical queries to
#      pg_timing.txt;
#   3. the cluster is stopped and removed.
#
# Run from anywhere, as root (the server runs as user postgres through
# runuser) or as a user who may run initdb. Environment: PGPORT (default
# 5433), PGBIN (default: the newest /usr/lib/postgresql/*/bin, preferring 15).
# PostgreSQL is installed with apt-get only when no server binaries are found.
set -euo pipefail
export GOTOOLCHAIN="${GOTOOLCHAIN:-go1.27.3}" # go.mod needs Go 1.27.3; the go command fetches it from the module proxy

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
port="${PGPORT:-5433}"
# shellcheck source=../../../bench/pg/cluster.sh
. "$repo/bench/pg/cluster.sh"

echo "== texts.tsv and queries.tsv from the generator"
(cd "$repo" && go test ./index/trigram -run '^TestWriteFixtureInputs$' -update -count=1)

echo "== PostgreSQL"
pg_bin

D="$(mktemp -d)"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$D"
PID=""
trap pg_cleanup EXIT

as_pg "$PGBIN/initdb" -D "$D/data" -E UTF8 --locale=C.UTF-8 -A trust -U postgres >/dev/null
as_pg "$PGBIN/pg_ctl" -D "$D/data" -l "$D/server.log" -w \
  -o "-p $port -c listen_addresses=127.0.0.1 -k $D" start >/dev/null
PID="$(head -1 "$D/data/postmaster.pid")"

psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres "$@"; }

cd "$here"
psql <<'SQL'
CREATE EXTENSION pg_trgm;
CREATE TABLE variants (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE q (qid int PRIMARY KEY, q text NOT NULL);
\copy variants FROM 'texts.tsv'
\copy q FROM 'queries.tsv'
CREATE INDEX variants_name_trgm ON variants USING gin (name gin_trgm_ops);
VACUUM ANALYZE variants;
VACUUM ANALYZE q;
SQL

for thr in 0.5 0.3; do
  echo "== expected_word_$thr.tsv"
  # \copy takes the rest of its line: the query stays on one line.
  psql <<SQL
SET pg_trgm.word_similarity_threshold = $thr;
\copy (SELECT q.qid, r.id, r.s::float8 FROM q CROSS JOIN LATERAL (SELECT v.id, v.name, word_similarity(q.q, v.name) AS s FROM variants v WHERE q.q <% v.name ORDER BY s DESC, v.name COLLATE "C", v.id LIMIT 10) r ORDER BY q.qid, r.s DESC, r.name COLLATE "C", r.id) TO 'expected_word_$thr.tsv'
SQL
  wc -l "expected_word_$thr.tsv"
done

echo "== pg_timing.txt"
version="$(psql -At -c 'SHOW server_version')"
times=()
{
  echo "# EXPLAIN ANALYZE of the typeahead query through the GIN index (gin_trgm_ops),"
  echo "# PostgreSQL $version, 103,372 rows, pg_trgm.word_similarity_threshold = 0.5,"
  echo "# enable_seqscan = off; each query run twice, the second (warm) run recorded."
  echo "# SELECT id, name, word_similarity(\$q, name) AS s FROM variants"
  echo "#  WHERE \$q <% name ORDER BY s DESC, name COLLATE \"C\", id LIMIT 10;"
  echo "# qid<TAB>execution ms<TAB>rows<TAB>query"
} >pg_timing.txt
while IFS=$'\t' read -r qid query; do
  out="$(psql -At -v q="$query" <<'SQL'
SET pg_trgm.word_similarity_threshold = 0.5;
SET enable_seqscan = off;
EXPLAIN ANALYZE SELECT id, name, word_similarity(:'q', name) AS s FROM variants WHERE :'q' <% name ORDER BY s DESC, name COLLATE "C", id LIMIT 10;
EXPLAIN ANALYZE SELECT id, name, word_similarity(:'q', name) AS s FROM variants WHERE :'q' <% name ORDER BY s DESC, name COLLATE "C", id LIMIT 10;
SQL
)"
  ms="$(printf '%s\n' "$out" | grep 'Execution Time' | tail -1 | sed -E 's/.*: ([0-9.]+) ms/\1/')"
  rows="$(printf '%s\n' "$out" | grep -E '^Limit' | tail -1 | sed -E 's/.*actual time=[^ ]+ rows=([0-9]+).*/\1/')"
  printf '%s\t%s\t%s\t%s\n' "$qid" "$ms" "$rows" "$query" >>pg_timing.txt
  times+=("$ms")
done < <(awk -F'\t' '$1 % 20 == 7 && $1 <= 400' queries.tsv)
printf '%s\n' "${times[@]}" | sort -g | awk '
  { v[NR] = $1 }
  END {
    med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    p99 = v[int(0.99 * NR + 0.999999)]
    printf "# %d queries: median %.3f ms, p99 %.3f ms\n", NR, med, p99
  }' | tee -a pg_timing.txt
echo "done"
