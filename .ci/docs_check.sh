#!/usr/bin/env bash
# Loads /v1/docs of a running server in headless Chromium (Debian's chromium
# package) and checks that every operation of /v1/openapi.json is on the
# rendered page. With --screenshot FILE it also saves a phone-sized
# screenshot, for a look by hand.
# Usage: .ci/docs_check.sh http://127.0.0.1:PORT [--screenshot FILE]
set -euo pipefail
base=${1:?usage: docs_check.sh BASE_URL [--screenshot FILE]}
shot=${3:-}
command -v chromium >/dev/null || { apt-get install -y -qq chromium >/dev/null; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
  --disable-component-update --disable-sync --user-data-dir="$profile")
dom=$(timeout 120 chromium "${flags[@]}" --dump-dom "$base/v1/docs" 2>/dev/null)
ops=$(curl -fsS "$base/v1/openapi.json" | grep -o '"operationId":"[^"]*"' | cut -d'"' -f4 | grep -v 'Head$' | sort -u)
[ -n "$ops" ] || { echo "no operations in the description"; exit 1; }
missing=0
for op in $ops; do
  grep -q "id=\"$op\"" <<<"$dom" || { echo "operation $op is not on the rendered docs page"; missing=1; }
done
[ "$missing" = 0 ] || exit 1
echo "docs page: all $(wc -w <<<"$ops") operations rendered by Chromium"
if [ "${2:-}" = "--screenshot" ] && [ -n "$shot" ]; then
  timeout 120 chromium "${flags[@]}" --window-size=390,2400 --screenshot="$shot" "$base/v1/docs" >/dev/null 2>&1
  echo "screenshot: $shot"
fi
