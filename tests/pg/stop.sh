#!/usr/bin/env bash
# Stop the throwaway PostgreSQL cluster started by tests/pg/start.sh (the last one, or the
# folder given) and remove its folder.
set -euo pipefail
tmp="${TMPDIR:-/tmp}"
dir="${1:-$(cat "$tmp/siege-pg-last" 2>/dev/null || true)}"
[ -n "$dir" ] && [ -d "$dir/data" ] || { echo "no cluster to stop" >&2; exit 0; }
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as_owner=()
if [ "$(id -u)" = 0 ]; then as_owner=(runuser -u postgres --); fi
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null || true
rm -rf "$dir"
if [ "$(cat "$tmp/siege-pg-last" 2>/dev/null)" = "$dir" ]; then rm -f "$tmp/siege-pg-last"; fi
