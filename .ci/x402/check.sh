#!/usr/bin/env bash
# End-to-end x402 check: the official npm client (@x402/fetch 2.27.0 with
# @x402/evm and a viem local account, pinned in package-lock.json) pays real
# requests to the four payable operations of a running catalogued, whose
# payments are verified and settled by cmd/facilitator on loopback; then the
# official MCP TypeScript SDK (@modelcontextprotocol/sdk 1.32.2) with the
# same x402 client pays tool calls of its MCP server (x402 in _meta,
# mcp-pay.mjs); then the facilitator's receipts must match the calls
# charged on both surfaces, one for one.
#
#   .ci/x402/check.sh CATALOGUED_BIN FACILITATOR_BIN SNAPSHOT WORKDIR
#
# Needs node (>= 20) and npm on PATH. Everything listens on 127.0.0.1 and
# every step is bounded by timeout. The payer is the public Anvil account #0:
# its key is well known and it is never funded; signing is offline.
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: $0 CATALOGUED_BIN FACILITATOR_BIN SNAPSHOT WORKDIR" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
catalogued=$(abs "$1") facilitator=$(abs "$2") snapshot=$(abs "$3") work=$(abs "$4")
for f in "$catalogued" "$facilitator"; do [ -x "$f" ] || { echo "x402 check: $f is not an executable" >&2; exit 2; }; done
[ -r "$snapshot" ] || { echo "x402 check: cannot read the snapshot $snapshot" >&2; exit 2; }
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "x402 check: node and npm (Node.js >= 20) are needed on PATH; install them first" >&2
  exit 2
fi

export PAYER_KEY=0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80 # Anvil #0, public, never funded

mkdir -p "$work"
rm -rf "$work/fac.db" "$work/state" "$work/ledger.jsonl" "$work/mcp-ledger.jsonl" "$work/receipts.jsonl" "$work/facilitator.log" "$work/catalogued.log"

fac_pid="" cat_pid=""
stop() { # stop PID: TERM, then wait for it (timeout forwards TERM to the server)
  if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
  fi
}
cleanup() {
  status=$?
  stop "$cat_pid"
  stop "$fac_pid"
  if [ $status -ne 0 ]; then
    for log in facilitator catalogued; do
      [ -s "$work/$log.log" ] && { echo "--- last lines of $work/$log.log" >&2; tail -n 20 "$work/$log.log" >&2; }
    done
  fi
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  timeout 10 node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}
# up URL [HEADER]: 0 when URL answers 2xx.
up() {
  timeout 5 node -e 'const [u,h]=process.argv.slice(1);fetch(u,{headers:h?{Authorization:h}:{}}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "$@"
}
status_of() { # status_of URL: the HTTP status, without auth
  timeout 5 node -e 'fetch(process.argv[1]).then(r=>console.log(r.status),()=>console.log(0))' "$1"
}
wait_up() { # wait_up NAME PID URL [HEADER]
  local name=$1 pid=$2
  shift 2
  for _ in $(seq 1 100); do
    up "$@" && return 0
    kill -0 "$pid" 2>/dev/null || { echo "x402 check: $name exited before serving" >&2; return 1; }
    sleep 0.2
  done
  echo "x402 check: $name did not answer $1 within 20 s" >&2
  return 1
}

echo "== npm ci (.ci/x402)"
(cd "$here" && timeout 300 npm ci --no-audit --no-fund --silent)
node --version
(cd "$here" && npm ls --depth=0 2>/dev/null | tail -n +2)

token=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
fac_port=$(free_port)
fac_url="http://127.0.0.1:$fac_port"
echo "== facilitator on $fac_url"
timeout 600 "$facilitator" -listen "127.0.0.1:$fac_port" -db "$work/fac.db" -token "$token" >"$work/facilitator.log" 2>&1 &
fac_pid=$!
wait_up facilitator "$fac_pid" "$fac_url/supported" "Bearer $token"
code=$(status_of "$fac_url/supported")
[ "$code" = 401 ] || { echo "x402 check: the facilitator answered $code without its token, want 401" >&2; exit 1; }

api_port=$(free_port)
mcp_port=$(free_port)
while [ "$mcp_port" = "$api_port" ]; do mcp_port=$(free_port); done
base="http://127.0.0.1:$api_port/v1"
mcp_url="http://127.0.0.1:$mcp_port/mcp"
echo "== catalogued on $base, MCP on $mcp_url"
timeout 600 "$catalogued" -listen "127.0.0.1:$api_port" -snapshot "$snapshot" -state "$work/state" -admin.listen "" \
  -x402.facilitator "$fac_url" -x402.facilitatorAuth "Authorization: Bearer $token" -mcp.listen "127.0.0.1:$mcp_port" >"$work/catalogued.log" 2>&1 &
cat_pid=$!
wait_up catalogued "$cat_pid" "$base/health"
# GET /mcp is 405 on a stateless server: the protected-resource metadata
# beside it says the MCP listener is up.
wait_up "catalogued (MCP)" "$cat_pid" "http://127.0.0.1:$mcp_port/.well-known/oauth-protected-resource/mcp"

echo "== the official x402 client pays (node pay.mjs)"
started=$(date +%s%N)
(cd "$here" && timeout 180 node pay.mjs "$base" "$work/ledger.jsonl")
echo "pay.mjs took $(( ($(date +%s%N) - started) / 1000000 )) ms"

echo "== the official MCP client pays tool calls with x402 (node mcp-pay.mjs)"
started=$(date +%s%N)
(cd "$here" && timeout 180 node mcp-pay.mjs "$mcp_url" "$work/mcp-ledger.jsonl")
echo "mcp-pay.mjs took $(( ($(date +%s%N) - started) / 1000000 )) ms"

echo "== facilitator receipts"
stop "$cat_pid"; cat_pid=""
stop "$fac_pid"; fac_pid="" # releases the bbolt lock on fac.db
timeout 30 "$facilitator" -db "$work/fac.db" -receipts >"$work/receipts.jsonl"
(cd "$here" && timeout 30 node receipts.mjs "$work/ledger.jsonl" "$work/mcp-ledger.jsonl" "$work/receipts.jsonl")
echo "x402 check: ok"
