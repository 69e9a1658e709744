#!/usr/bin/env bash
# Generates a TypeScript client from a running server's description
# (openapi-typescript types for openapi-fetch), type-checks walk.ts against
# it with tsc (its @ts-expect-error lines prove fuel and units are typed as
# their enumerations) and runs it: brand > model > generation > variant >
# specs, a filter, and the 400 of an unknown fuel.
#   .ci/ts-client/check.sh http://127.0.0.1:PORT API_KEY
set -euo pipefail
base=${1:?usage: check.sh BASE_URL API_KEY}
key=${2:?usage: check.sh BASE_URL API_KEY}
cd "$(dirname "$0")"
[ -d node_modules ] || npm ci --no-audit --no-fund --silent
timeout 120 npx openapi-typescript "$base/v1/openapi.json" -o schema.d.ts >/dev/null
grep -q '"petrol"' schema.d.ts || { echo "the generated types do not enumerate the fuels"; exit 1; }
timeout 120 npx tsc -p .
timeout 60 node dist/walk.js "$base" "$key"
