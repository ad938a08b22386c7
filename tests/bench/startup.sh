#!/usr/bin/env bash
# Start-up with many unfinished games (docs/benchmarks.md):
#   tests/bench/startup.sh GAMES ACTIONS
# creates GAMES unfinished games of ACTIONS actions each over the protocol, stops the server,
# then times how long it takes to listen — on an empty database and on this one, three times
# each, alternately — and the first touch of 1,000 cold games after a fresh restart, with the
# server's memory before and after. The server loads no game before it listens; each loads
# when first touched.
#
# With SIEGE_OLD_BIN=path, the games are seeded by that (older) server, which is also timed
# restarting on a copy of the same database, before this one migrates it: old beside new.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
games=${1:-10000}
actions=${2:-100}
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/siege-bench.XXXXXX")
empty=$(mktemp -d "${BENCH_DIR:-/tmp}/siege-bench.XXXXXX")
old=${SIEGE_OLD_BIN:-}
trap 'stop_server; rm -rf "$dir" "$empty"' EXIT
report=$out/startup.txt
echo "== startup: load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$report"
new_bin=$bin
[ -n "$old" ] && bin=$old
start_server "$dir"
echo "seeding $games games of $actions actions with $bin" | tee -a "$report"
"$load_bin" load --url "$url" --server-pid "$pid" --seed-games "$games" --seed-actions "$actions" \
    --games 64 --sqlite-rows 0 --sqlite-probe-ms 0 --echo-sockets 0 | tail -1 >> "$report"
stop_server
db_mib=$(du -sm "$dir" | cut -f1)
unfinished=$(sqlite3 "$dir/siege.db" "SELECT count(*) FROM games WHERE status != 'finished'" 2>/dev/null || echo "?")
if [ -n "$old" ]; then
    copy=$(mktemp -d "${BENCH_DIR:-/tmp}/siege-bench.XXXXXX")
    cp "$dir"/siege.db* "$copy"/
    start_server "$copy"
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
    stop_server
    rm -rf "$copy"
    echo "old server $old: listening after ${ready_ms} ms with $unfinished unfinished games (${db_mib} MiB), RSS ${rss} KiB (load average $(cut -d' ' -f1 /proc/loadavg))" | tee -a "$report"
fi
bin=$new_bin
for run in 1 2 3; do
    start_server "$empty"
    empty_ms=$ready_ms
    stop_server
    start_server "$dir"
    full_ms=$ready_ms
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
    stop_server
    echo "run $run: listening after ${full_ms} ms with $unfinished unfinished games (${db_mib} MiB, RSS ${rss} KiB); empty database ${empty_ms} ms (load average $(cut -d' ' -f1 /proc/loadavg))" | tee -a "$report"
done
start_server "$dir"
before=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
echo "first touch of cold games, one at a time (load average $(cut -d' ' -f1-3 /proc/loadavg)):" | tee -a "$report"
"$load_bin" load --url "$url" --server-pid "$pid" --touch-games 1000 --sqlite-rows 0 \
    --sqlite-probe-ms 0 --echo-sockets 0 | tee -a "$report" | grep -E "first touch|errors"
after=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
echo "RSS before the touches ${before} KiB, after ${after} KiB" | tee -a "$report"
