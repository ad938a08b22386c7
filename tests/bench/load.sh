#!/usr/bin/env bash
# One `siege load` run against a fresh server (docs/benchmarks.md):
#   tests/bench/load.sh NAME [siege load flags...]
# writes target/bench/NAME.txt (the summary and its JSON line). SIEGE_COMMIT_BATCH in the
# environment reaches the server (1: no group commit); SIEGE_BIN picks the server's binary and
# SIEGE_LOAD_BIN the load generator's (default: the same).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
name=$1
shift
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/siege-bench.XXXXXX")
trap 'stop_server; rm -rf "$dir"' EXIT
start_server "$dir"
echo "== $name: siege load --url $url $* (SIEGE_COMMIT_BATCH=${SIEGE_COMMIT_BATCH:-unset})" | tee "$out/$name.txt"
"$load_bin" load --url "$url" --server-pid "$pid" --sqlite-dir "$dir" "$@" | tee -a "$out/$name.txt"
