#!/usr/bin/env bash
# Loads /v1/docs of a running server in headless Chromium (Debian's
# chromium package, driven by playwright-core pinned in .ci/docs) at 1400 px
# and 390 px: every operation of /v1/openapi.json must be on the rendered
# page, the page must not overflow horizontally, load nothing from another
# origin and log no error (.ci/docs/check.mjs says exactly what is checked).
# Screenshots of both widths go to OUT_DIR.
# Usage: .ci/docs_check.sh http://127.0.0.1:PORT [OUT_DIR]   (default: a new temporary directory)
set -euo pipefail
base=${1:?usage: docs_check.sh BASE_URL [OUT_DIR]}
out=${2:-$(mktemp -d)}
command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
dir=$(cd "$(dirname "$0")/docs" && pwd)
[ -d "$dir/node_modules/playwright-core" ] || (cd "$dir" && npm ci --no-audit --no-fund --silent)
CHROMIUM=$(command -v chromium) timeout 300 node "$dir/check.mjs" "$base" "$out"
