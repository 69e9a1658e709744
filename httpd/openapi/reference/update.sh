#!/usr/bin/env bash
# Refreshes the embedded Redoc bundle from the npm registry:
#   httpd/openapi/reference/update.sh 2.5.4
# It fetches the package with `npm pack`, checks the tarball against the
# registry's sha512 integrity, copies bundles/redoc.standalone.js, its
# bundled-licence notices and Redoc's LICENSE here, and sets Version in
# reference.go. Review the diff and run `go test ./httpd/...` and
# .ci/docs_check.sh before committing: a new major version may need other
# options in the page (httpd/openapi/docs.go).
set -euo pipefail
export GOTOOLCHAIN="${GOTOOLCHAIN:-go1.27.3}" # go.mod needs Go 1.27.3; the go command fetches it from the module proxy
version=${1:?usage: update.sh VERSION (see: npm view redoc versions)}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
tgz=$(npm pack --silent "redoc@$version")
want=$(npm view "redoc@$version" dist.integrity)
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
[ "$want" = "$got" ] || { echo "integrity mismatch: registry $want, tarball $got" >&2; exit 1; }
tar xzf "$tgz"
license=$(node -p 'require("./package/package.json").license')
[ "$license" = "MIT" ] || { echo "redoc@$version is licensed $license, not MIT: review before embedding" >&2; exit 1; }
grep -q "Version: \"$version\"" package/bundles/redoc.standalone.js.LICENSE.txt ||
  { echo "the bundle's banner does not name version $version" >&2; exit 1; }
cp package/bundles/redoc.standalone.js package/bundles/redoc.standalone.js.LICENSE.txt package/LICENSE "$here/"
sed -i -E "s/^const Version = \"[^\"]*\"/const Version = \"$version\"/" "$here/reference.go"
echo "embedded redoc@$version ($want):"
ls -l "$here/redoc.standalone.js"
