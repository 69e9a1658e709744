# shellcheck shell=bash
# What the scripts that run a throwaway PostgreSQL cluster share, sourced by
# bench/pg/run.sh and index/trigram/testdata/gen_fixture.sh: finding (or
# installing) the server binaries, running them as postgres, and stopping
# and removing the cluster on exit.

# pg_bin sets PGBIN, unless the environment set it, to
# /usr/lib/postgresql/15/bin, else the newest installed version's; when
# initdb or a program named as an argument is not there, it installs
# PostgreSQL from Debian's packages and takes the newest. It prints the
# server's version.
pg_bin() {
  if [ -z "${PGBIN:-}" ]; then
    if [ -x /usr/lib/postgresql/15/bin/initdb ]; then
      PGBIN=/usr/lib/postgresql/15/bin
    else
      PGBIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
    fi
  fi
  local p missing=""
  for p in initdb "$@"; do
    [ -n "$PGBIN" ] && [ -x "$PGBIN/$p" ] || missing=1
  done
  if [ -n "$missing" ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql postgresql-contrib
    PGBIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
  fi
  "$PGBIN/postgres" --version
}

# as_pg runs a command as user postgres when running as root, else as is.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# pg_cleanup, the EXIT trap, stops the server whose pid is in PID, if any,
# and removes the cluster's directory D.
pg_cleanup() {
  if [ -n "$PID" ]; then
    echo "== stopping the cluster (pid $PID) and removing $D"
    kill -INT "$PID" 2>/dev/null || true
    while kill -0 "$PID" 2>/dev/null; do sleep 0.2; done
  fi
  rm -rf "$D"
}
