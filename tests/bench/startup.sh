#!/usr/bin/env bash
# Start-up with many unfinished games (docs/benchmarks.md):
#   tests/bench/startup.sh GAMES ACTIONS
# creates GAMES unfinished games of ACTIONS actions each over the protocol, stops the server,
# starts it again on the same database and reports how long it took to listen (every
# unfinished game is rebuilt from its log before it does) and its memory then.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
games=${1:-10000}
actions=${2:-100}
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/siege-bench.XXXXXX")
trap 'stop_server; rm -rf "$dir"' EXIT
report=$out/startup.txt
start_server "$dir"
echo "== startup: seeding $games games of $actions actions" | tee "$report"
"$bin" load --url "$url" --server-pid "$pid" --seed-games "$games" --seed-actions "$actions" \
    --games 64 --sqlite-rows 0 --sqlite-probe-ms 0 --echo-sockets 0 | tail -1 >> "$report"
stop_server
db_mib=$(du -sm "$dir" | cut -f1)
start_server "$dir"
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
loaded=$(grep -o 'loaded=[0-9]*' "$dir/serve.err" | tail -1 || true)
echo "restart: listening after ${ready_ms} ms with $loaded; RSS ${rss} KiB; database ${db_mib} MiB" | tee -a "$report"
