#!/bin/sh
# image-rootfs.sh OUT: lays out the files of the container image, run from
# the module root. OUT/root is the part owned by root: static builds of
# catalogued and the catalogue CLI in /usr/local/bin, /etc/passwd and
# /etc/group naming the non-root user 65532 (nonroot), the CA certificates
# the server needs for outbound TLS (SMTP STARTTLS, an x402 facilitator over
# https) and an empty /tmp. OUT/nonroot holds the directories the server
# writes, /data (the snapshot, generated there when missing) and /state (keys,
# secrets, payments, outbox), which the Containerfile copies owned by 65532
# and declares as volumes.
#
# The Containerfile's build stage runs it (a script rather than RUN lines:
# it is the same under any builder and POSIX sh, dash or busybox).
set -eu
umask 022
out=${1:?usage: image-rootfs.sh OUT}
root=$out/root

mkdir -p "$out/nonroot/data" "$out/nonroot/state"
chmod 0755 "$out/nonroot/data"
chmod 0700 "$out/nonroot/state"
mkdir -p "$root/usr/local/bin" "$root/etc/ssl/certs" "$root/tmp"
# Static: no cgo, so no libc and no ELF interpreter; -trimpath keeps the
# builder's paths out of the binaries, -s -w the symbol and debug tables.
# The build context has no .git, so the toolchain records no revision: the
# linker stamps VERSION and REVISION (the Containerfile's build arguments)
# for -version and the build-info metric.
pkg=github.com/vspec/catalogue/httpd/buildinfo
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X $pkg.version=${VERSION:-} -X $pkg.revision=${REVISION:-}" \
  -o "$root/usr/local/bin/" ./cmd/catalogued ./cmd/catalogue
chmod 0755 "$root/usr/local/bin/catalogued" "$root/usr/local/bin/catalogue"

cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
nonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
nonroot:x:65532:
EOF
chmod 0644 "$root/etc/passwd" "$root/etc/group"

# The CA bundle Go reads first on Linux (crypto/x509's certFiles).
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
chmod 0644 "$root/etc/ssl/certs/ca-certificates.crt"

# The licences and notices of what the binaries contain: the Apache 2.0
# modules' NOTICE files must travel with them (rueidis has one), and every
# module's licence is copied beside it, in /usr/share/licenses/<module>.
go list -deps -f '{{with .Module}}{{.Path}} {{.Dir}}{{end}}' ./cmd/catalogued ./cmd/catalogue | sort -u |
  while read -r path dir; do
    [ -n "$dir" ] && [ "$path" != "github.com/vspec/catalogue" ] || continue
    for f in "$dir"/LICENSE* "$dir"/LICENCE* "$dir"/COPYING* "$dir"/NOTICE*; do
      [ -f "$f" ] || continue
      mkdir -p "$root/usr/share/licenses/$path"
      cp "$f" "$root/usr/share/licenses/$path/"
    done
  done
chmod -R a+rX "$root/usr/share/licenses"
chmod 1777 "$root/tmp"
