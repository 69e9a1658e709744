#!/usr/bin/env bash
# Refreshes disposable.txt.gz from the npm package disposable-email-domains
# (github.com/ivolo/disposable-email-domains, MIT). Needs npm and python3.
set -euo pipefail
cd "$(dirname "$0")"
version=${1:-latest}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack "disposable-email-domains@$version" >/dev/null && tar xzf disposable-email-domains-*.tgz)
python3 - "$tmp/package" <<'PY'
import json, sys, os
p = sys.argv[1]
d = set(json.load(open(os.path.join(p, "index.json"))))
w = os.path.join(p, "wildcard.json")
if os.path.exists(w):
    d |= set(json.load(open(w)))
d = sorted(x.strip().lower() for x in d if x.strip())
open("disposable.txt", "w").write("\n".join(d) + "\n")
print(len(d), "domains")
PY
gzip -9 -f disposable.txt
