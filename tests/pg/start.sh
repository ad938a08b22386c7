#!/usr/bin/env bash
# Start a throwaway PostgreSQL cluster for the tests and print its URL (nothing else goes to
# stdout). Usage:
#
#   export SIEGE_TEST_POSTGRES_URL=$(tests/pg/start.sh)
#   cargo test -p siege --lib store -- --include-ignored
#   tests/pg/stop.sh   # stops the cluster and removes its folder
#
# Debian's PostgreSQL (`apt-get install postgresql`; any version with /usr/lib/postgresql/*/bin,
# the newest one found is used). The cluster lives in a new temporary folder, listens on
# 127.0.0.1 on a free port and on a socket in that folder, trusts local connections (it is for
# tests only) and is owned by the `postgres` user when run as root, because initdb refuses root.
# The folder is written to $TMPDIR/siege-pg-last so that stop.sh finds it.
set -euo pipefail

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "no PostgreSQL found under /usr/lib/postgresql (apt-get install -y postgresql)" >&2
  exit 1
fi

tmp="${TMPDIR:-/tmp}"
dir=$(mktemp -d "$tmp/siege-pg.XXXXXX")
# A free port: ask the kernel for one, then give it back to PostgreSQL.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

as_owner=()
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  chown postgres "$dir"
  chmod 700 "$dir"
  as_owner=(runuser -u postgres --)
  user=postgres
else
  user=$(id -un)
fi

"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U "$user" --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log" >&2; exit 1; }
# fsync stays on: the store's durability is part of what the tests run through.
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null \
  || { cat "$dir/server.log" >&2; exit 1; }

echo "$dir" > "$tmp/siege-pg-last"
echo "postgres://$user@127.0.0.1:$port/postgres"
