#!/usr/bin/env bash
# Checks the container image of cmd/catalogued/Containerfile on a machine
# with no container registry and no Docker engine, with Debian's buildah and
# podman (installed with apt-get when missing), as root.
#
#   .ci/image/check.sh
#
# 1. Build: buildah builds cmd/catalogued/Containerfile, both stages, with
#    GO_IMAGE set to a local stand-in for golang:1.27-bookworm (busybox, the
#    CA bundle, the official image's Go environment and this machine's Go
#    toolchain mounted at /usr/local/go), so nothing is pulled. Storage is
#    private to the check (vfs driver, in a temporary directory) and removed
#    at the end; buildah runs the build stage with chroot isolation.
# 2. Config: the image's OCI config has user 65532:65532, the entrypoint,
#    the environment that puts the snapshot in /data and the state in /state,
#    exactly the volumes /data and /state, ports 8080 and 8090, the labels.
# 3. Filesystem: exactly the expected files, owners and modes; both binaries
#    static ELF (no interpreter, no dynamic section) built with
#    CGO_ENABLED=0, -trimpath and -ldflags "-s -w"; the nonroot passwd and
#    group entries; a CA bundle; nothing but /data and /state writable by
#    65532.
# 4. Run (podman, runtime runc, see below): the CLI in the image writes a
#    snapshot into a fresh /data volume and creates an apify key in a fresh
#    /state volume, both as 65532; the server then starts with a read-only
#    root filesystem, no capabilities, a small snapshot bind-mounted
#    read-only on /data, the state volume on /state and its ports published
#    on loopback only; /readyz turns 200, a keyed GET /v1/brands is 200 and
#    a keyless one 401, the MCP endpoint initializes; the process runs as
#    uid/gid 65532 and the files it made in the state volume are 65532's;
#    podman stop (SIGTERM) drains and the exit status is 0.
#
# Why runc and explicit ulimits: on the CI VM (cgroup v1 with a cgroup2
# hierarchy beside it, root without CAP_SYS_RESOURCE) crun refuses to start
# any container ("crun: cgroups in hybrid mode not supported, drop all
# controllers from cgroupv2"), and podman's default rlimits cannot be set
# ("setrlimit `RLIMIT_NOFILE`: Operation not permitted"), so the container
# gets the machine's own open-file limit and 4096 processes.
#
# IMAGE_CHECK_NO_RUN=1 skips step 4 on a machine where podman cannot start
# containers. About 30 s when the Go build cache holds the build stage's
# compilation (the second run on a machine on), 3 to 5 min on 2 cores before.
set -euo pipefail
cd "$(dirname "$0")/../.."
export GOFLAGS="${GOFLAGS:--buildvcs=false}"
t0=$(date +%s)
say() { printf '  %s\n' "$*"; }
fail() { printf 'image check FAILED: %s\n' "$*" >&2; exit 1; }

need=()
for tool in buildah podman runc slirp4netns curl jq readelf; do
  command -v "$tool" >/dev/null || need+=("$tool")
done
need=("${need[@]/readelf/binutils}")
[ -x /bin/busybox ] || need+=(busybox-static)
[ -s /etc/ssl/certs/ca-certificates.crt ] || need+=(ca-certificates)
if [ ${#need[@]} -gt 0 ]; then
  if ! compgen -G '/var/lib/apt/lists/*_Packages' >/dev/null; then apt-get update -qq; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
say "$(buildah --version); $(podman --version); $(runc --version | head -n 1)"

work=$(mktemp -d /tmp/catalogue-image.XXXXXX)
store=(--root "$work/storage" --runroot "$work/run" --storage-driver vfs)
bah() { buildah "${store[@]}" "$@"; }
pod() { podman "${store[@]}" --tmpdir "$work/libpod" --runtime runc "$@"; }
image=localhost/catalogued:check
name=catalogued-check-$$
mounted=""
cleanup() {
  pod rm -f -t 0 "$name" >/dev/null 2>&1 || true
  if [ -n "$mounted" ]; then bah umount "$mounted" >/dev/null 2>&1 || true; bah rm "$mounted" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# 1. Build. The stand-in for golang:1.27-bookworm: busybox for the shell
# and the tools image-rootfs.sh uses, root's passwd entry (HOME=/root, as
# in the Debian image), the CA bundle, and the official image's Go
# environment; the toolchain itself is mounted from this machine at the
# official image's path, with the module and build caches (warm after the
# first run: the build stage's paths, /src and /go/pkg/mod, never change).
! readelf -lW /bin/busybox | grep -q INTERP || fail "/bin/busybox is dynamically linked: install busybox-static"
base=$(bah from scratch)
fs=$(bah mount "$base")
mkdir -p "$fs/bin" "$fs/etc/ssl/certs" "$fs/root" "$fs/tmp" "$fs/usr/local/go" "$fs/go/pkg/mod"
chmod 1777 "$fs/tmp"
cp /bin/busybox "$fs/bin/busybox"
for applet in $(/bin/busybox --list); do
  [ "$applet" = busybox ] || ln -s busybox "$fs/bin/$applet"
done
echo 'root:x:0:0:root:/root:/bin/sh' >"$fs/etc/passwd"
echo 'root:x:0:' >"$fs/etc/group"
cp /etc/ssl/certs/ca-certificates.crt "$fs/etc/ssl/certs/"
bah umount "$base" >/dev/null
bah config --env PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env GOPATH=/go --env GOTOOLCHAIN=local --workingdir /go "$base"
bah commit --quiet --rm "$base" localhost/golang-standin:check >/dev/null

revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
build_start=$(date +%s)
if ! bah build --isolation chroot --pull-never --build-arg GO_IMAGE=localhost/golang-standin:check \
  -v "$(go env GOROOT):/usr/local/go:ro" -v "$(go env GOMODCACHE):/go/pkg/mod" -v "$(go env GOCACHE):/root/.cache/go-build" \
  --build-arg VERSION=ci-check --build-arg REVISION="$revision" \
  -f cmd/catalogued/Containerfile -t "$image" . >"$work/build.log" 2>&1; then
  cat "$work/build.log"; fail "buildah build"
fi
say "built $image from cmd/catalogued/Containerfile, both stages, in $(($(date +%s) - build_start)) s ($(bah images --format '{{.Size}}' "$image"))"

# 2. Config.
config=$(bah inspect --type image "$image" | jq -c '.OCIv1 | {os, architecture, config}')
expect() { # expect JQ_FILTER WHAT: the filter must be true of $config
  jq -e "$1" <<<"$config" >/dev/null || { jq . <<<"$config" >&2; fail "image config: $2"; }
}
expect '.os == "linux" and .architecture == "'"$(go env GOARCH)"'"' "os/architecture"
expect '.config.User == "65532:65532"' "user 65532:65532"
expect '.config.Entrypoint == ["/usr/local/bin/catalogued"] and ((.config.Cmd // []) == [])' "entrypoint"
expect '(.config.Volumes | keys) == ["/data", "/state"]' "volumes /data and /state"
expect '(.config.ExposedPorts | keys) == ["8080/tcp", "8090/tcp"]' "exposed ports"
for e in CATALOGUED_LISTEN=:8080 CATALOGUED_MCP_LISTEN=:8090 CATALOGUED_SNAPSHOT=/data/catalogue.snap \
  CATALOGUED_GENERATE=true CATALOGUED_STATE=/state; do
  expect '.config.Env | index("'"$e"'")' "environment $e"
done
expect '.config.Labels["org.opencontainers.image.source"] == "https://github.com/vspec/catalogue"' "source label"
expect '.config.Labels["org.opencontainers.image.version"] == "ci-check"' "version label from the VERSION build argument"
expect '.config.Labels["org.opencontainers.image.revision"] == "'"$revision"'"' "revision label"
expect '.config.Labels["org.opencontainers.image.licenses"] | test("Apache-2.0") and test("ISC") and test("CC0-1.0")' "licences label"
expect '.config.StopSignal == "SIGTERM"' "stop signal"
say "config: user 65532:65532, entrypoint, env, volumes /data /state, ports 8080 8090, labels"

# 3. Filesystem.
mounted=$(bah from "$image")
rootfs=$(bah mount "$mounted")
layout=$(cd "$rootfs" && find . -mindepth 1 ! -path './usr/share/licenses/*' -printf '%M %U:%G %p\n' | sort -k3)
want=$(sort -k3 <<'EOF'
drwxr-xr-x 65532:65532 ./data
drwxr-xr-x 0:0 ./etc
-rw-r--r-- 0:0 ./etc/group
-rw-r--r-- 0:0 ./etc/passwd
drwxr-xr-x 0:0 ./etc/ssl
drwxr-xr-x 0:0 ./etc/ssl/certs
-rw-r--r-- 0:0 ./etc/ssl/certs/ca-certificates.crt
drwx------ 65532:65532 ./state
drwxrwxrwt 0:0 ./tmp
drwxr-xr-x 0:0 ./usr
drwxr-xr-x 0:0 ./usr/local
drwxr-xr-x 0:0 ./usr/local/bin
-rwxr-xr-x 0:0 ./usr/local/bin/catalogue
-rwxr-xr-x 0:0 ./usr/local/bin/catalogued
drwxr-xr-x 0:0 ./usr/share
drwxr-xr-x 0:0 ./usr/share/licenses
EOF
)
if [ "$layout" != "$want" ]; then
  diff -u <(echo "$want") <(echo "$layout") >&2 || true
  fail "image filesystem (- wanted, + found)"
fi
for bin in catalogued catalogue; do
  f=$rootfs/usr/local/bin/$bin
  readelf -h "$f" | grep -q 'Type:.*EXEC' || fail "$bin is not an ELF executable"
  ! readelf -lW "$f" | grep -q INTERP || fail "$bin has an ELF interpreter (dynamically linked)"
  readelf -d "$f" | grep -q 'no dynamic section' || fail "$bin has a dynamic section"
  ! readelf -SW "$f" | grep -qE ' \.(symtab|debug_[a-z]+) ' || fail "$bin has a symbol table or DWARF (built without -ldflags='-s -w')"
  # go version -m omits -ldflags when -trimpath is set: the sections above say it.
  info=$(go version -m "$f")
  for setting in "path"$'\t'"github.com/vspec/catalogue/cmd/$bin" "build"$'\t'"CGO_ENABLED=0" "build"$'\t'"-trimpath=true"; do
    grep -qF "$setting" <<<"$info" || { echo "$info" >&2; fail "$bin built without: $setting"; }
  done
done
grep -qx 'nonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin' "$rootfs/etc/passwd" || fail "passwd entry of 65532"
grep -qx 'nonroot:x:65532:' "$rootfs/etc/group" || fail "group entry of 65532"
[ "$(grep -c 'BEGIN CERTIFICATE' "$rootfs/etc/ssl/certs/ca-certificates.crt")" -gt 50 ] || fail "CA bundle"
writable=$(cd "$rootfs" && find . -mindepth 1 \( -user 65532 -o -group 65532 -o \( -perm -o+w ! -path ./tmp \) \) -printf '%p\n' | sort | tr '\n' ' ')
[ "$writable" = "./data ./state " ] || fail "writable by 65532 or anyone beyond /data and /state (and sticky /tmp): $writable"
# Every bundled module's licence, and rueidis' NOTICE (Apache 2.0, section 4d).
[ -f "$rootfs/usr/share/licenses/github.com/redis/rueidis/NOTICE" ] || fail "rueidis' NOTICE is not in /usr/share/licenses"
for m in github.com/valyala/fasthttp github.com/redis/rueidis github.com/dchest/siphash github.com/decred/dcrd/dcrec/secp256k1/v4 go.etcd.io/bbolt; do
  ls "$rootfs/usr/share/licenses/$m/" 2>/dev/null | grep -qiE '^(licen[cs]e|copying)' || fail "no licence of $m in /usr/share/licenses"
done
licences=$(find "$rootfs/usr/share/licenses" -type f | wc -l)
cp "$rootfs/usr/local/bin/catalogue" "$work/catalogue"
bah umount "$mounted" >/dev/null && bah rm "$mounted" >/dev/null && mounted=""
say "filesystem: the 16 expected entries and $licences licence and notice files of the bundled modules, static binaries (CGO_ENABLED=0, -trimpath, -s -w), passwd/group, CA bundle, only /data and /state owned by 65532"

if [ "${IMAGE_CHECK_NO_RUN:-}" = 1 ]; then
  say "IMAGE_CHECK_NO_RUN=1: not starting the image ($(($(date +%s) - t0)) s)"
  exit 0
fi

# 4. Run.
nofile=$(ulimit -Hn)
run=(run --ulimit "nofile=$nofile:$nofile" --ulimit nproc=4096:4096)
version=$(pod "${run[@]}" --rm --network none "$image" -version 2>"$work/version.err") || { cat "$work/version.err" >&2; fail "podman run $image -version"; }
# No .git in the build context: the linker stamps VERSION and REVISION.
[[ $version == "catalogued ci-check ${revision:0:12}, go"* ]] || fail "catalogued -version in the image: $version"
say "podman run: $version"

# The CLI in the image, as 65532: a snapshot into a fresh data volume (the
# generator is deterministic: the same bytes as the CI machine's), a key
# into a fresh state volume.
mkdir -p "$work/snap"
"$work/catalogue" gen -scale 0.01 -seed 5 -o "$work/snap/catalogue.snap" >/dev/null 2>&1
pod volume create catalogue-data >/dev/null
pod volume create catalogue-state >/dev/null
pod "${run[@]}" --rm --network none -v catalogue-data:/data --entrypoint /usr/local/bin/catalogue "$image" \
  gen -scale 0.01 -seed 5 -o /data/catalogue.snap >"$work/gen.log" 2>&1 || { cat "$work/gen.log" >&2; fail "catalogue gen in the image"; }
data_dir=$(pod volume inspect -f '{{.Mountpoint}}' catalogue-data)
[ "$(stat -c '%u:%g %a' "$data_dir")" = "65532:65532 755" ] || fail "the data volume is not 65532's: $(stat -c '%u:%g %a' "$data_dir")"
[ "$(stat -c '%u:%g' "$data_dir/catalogue.snap")" = "65532:65532" ] || fail "snapshot written into the data volume not owned by 65532"
cmp -s "$data_dir/catalogue.snap" "$work/snap/catalogue.snap" || fail "the snapshot written in the container differs from the CI machine's"
key=$(pod "${run[@]}" --rm --network none -v catalogue-state:/state --entrypoint /usr/local/bin/catalogue "$image" \
  keys create -state /state -plan apify -note "image check" | tail -n 1)
[[ $key == vsc_apify_* ]] || fail "catalogue keys create in the image printed: $key"
state_dir=$(pod volume inspect -f '{{.Mountpoint}}' catalogue-state)
[ "$(stat -c '%u:%g %a' "$state_dir")" = "65532:65532 700" ] || fail "the state volume: $(stat -c '%u:%g %a' "$state_dir")"
say "CLI in the image as 65532: snapshot into the data volume (identical bytes), apify key into the state volume"

pod "${run[@]}" -d --name "$name" --read-only --cap-drop all --security-opt no-new-privileges \
  --network slirp4netns -p 127.0.0.1::8080 -p 127.0.0.1::8090 \
  -v "$work/snap:/data:ro" -v catalogue-state:/state "$image" >/dev/null
api=$(pod port "$name" 8080/tcp) mcp=$(pod port "$name" 8090/tcp)
[[ $api == 127.0.0.1:* && $mcp == 127.0.0.1:* ]] || fail "ports not published on loopback: $api $mcp"
ready=""
for _ in $(seq 1 150); do
  [ "$(pod inspect -f '{{.State.Running}}' "$name")" = true ] || { pod logs "$name" >&2; fail "the container stopped"; }
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://$api/readyz")" = 200 ]; then ready=1; break; fi
  sleep 0.2
done
[ -n "$ready" ] || { pod logs "$name" >&2; fail "/readyz never 200"; }
status() { curl -s -o "$work/body" -w '%{http_code}' "$@"; }
code=$(status -H "X-Api-Key: $key" "http://$api/v1/brands?limit=3")
[ "$code" = 200 ] && jq -e '.data | length == 3' "$work/body" >/dev/null || { cat "$work/body" >&2; fail "keyed GET /v1/brands: $code"; }
code=$(status "http://$api/v1/brands?limit=3")
[ "$code" = 401 ] || fail "keyless GET /v1/brands: $code, want 401"
code=$(status -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"image-check","version":"1"}}}' \
  "http://$mcp/mcp")
[ "$code" = 200 ] && grep -q '"serverInfo"' "$work/body" || { cat "$work/body" >&2; fail "MCP initialize: $code"; }
say "served on $api (API) and $mcp (MCP): /readyz 200, keyed GET /v1/brands 200, keyless 401, MCP initialize 200"

pid=$(pod inspect -f '{{.State.Pid}}' "$name")
ids=$(awk '/^(Uid|Gid):/ {print $1, $2, $3, $4, $5}' "/proc/$pid/status" | tr '\n' ' ')
[ "$ids" = "Uid: 65532 65532 65532 65532 Gid: 65532 65532 65532 65532 " ] || fail "the server's ids: $ids"
caps=$(awk '/^CapEff:/ {print $2}' "/proc/$pid/status")
[ "$caps" = 0000000000000000 ] || fail "the server has capabilities: $caps"
made=$(cd "$state_dir" && find . -mindepth 1 ! -user 65532 -printf '%p ')
[ -z "$made" ] || fail "files in the state volume not owned by 65532: $made"
[ -s "$state_dir/token.secret" ] && [ -s "$state_dir/admin.token" ] || fail "no token secret or admin token in the state volume"
say "process: uid and gid 65532, no capabilities, read-only root; the state volume's files are 65532's"

pod stop -t 35 "$name" >/dev/null
exit_code=$(pod inspect -f '{{.State.ExitCode}}' "$name")
[ "$exit_code" = 0 ] || { pod logs "$name" >&2; fail "exit status $exit_code after podman stop"; }
pod logs "$name" 2>&1 | grep -q '"msg":"stopped in' || { pod logs "$name" >&2; fail "no drain on SIGTERM"; }
say "podman stop: SIGTERM drained, exit status 0 ($(($(date +%s) - t0)) s in all)"
