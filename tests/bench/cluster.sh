#!/usr/bin/env bash
# `siege load` against PostgreSQL (docs/benchmarks.md, "PostgreSQL and several nodes"):
#   tests/bench/cluster.sh NAME [siege load flags...]
# runs the same load twice on a throwaway PostgreSQL cluster (tests/pg/start.sh), each time on
# a new database: against one `siege serve` (NAME-pg1), then against three `siege serve
# --node-id` nodes behind HAProxy with the repository's deploy/haproxy.cfg (NAME-pg3). Writes
# target/bench/NAME-pg1.txt and NAME-pg3.txt. The SQLite figures to set beside them come from
# tests/bench/load.sh with the same flags. Needs Debian's postgresql and haproxy.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
name=$1
shift
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/siege-cluster.XXXXXX")
pids=()
stop_all() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    pids=()
}
cleanup() {
    stop_all
    bash "$root/tests/pg/stop.sh" >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap cleanup EXIT
cluster=$(bash "$root/tests/pg/start.sh")

# new_database NAME: a fresh database on the cluster; prints its URL.
new_database() {
    psql -q "$cluster" -c "CREATE DATABASE $1" >/dev/null
    echo "${cluster%/*}/$1"
}

# start_node LOG DATABASE [FLAGS...]: a node (lib.sh's serve_at, trusting the other nodes and
# HAProxy on loopback); sets $node_pid and $node_url.
start_node() {
    local log=$1 db=$2
    shift 2
    serve_at "$log" "$db" --trusted-proxy 127.0.0.1/32 "$@"
    pids+=("$pid")
    node_pid=$pid
    node_url=$url
}

quiet=(--sqlite-rows 0 --sqlite-probe-ms 0)

# One node.
db=$(new_database bench_one)
start_node "$dir/one" "$db"
echo "== $name-pg1: one node on PostgreSQL; siege load --url $node_url $*" | tee "$out/$name-pg1.txt"
"$load_bin" load --url "$node_url" --server-pid "$node_pid" "${quiet[@]}" "$@" | tee -a "$out/$name-pg1.txt"
stop_all

# Three nodes behind HAProxy.
db=$(new_database bench_three)
config=$(cat "$root/deploy/haproxy.cfg")
first_pid=
for n in 1 2 3; do
    start_node "$dir/node$n" "$db" --node-id "node$n"
    first_pid=${first_pid:-$node_pid}
    config=${config//"server node$n node$n:8080"/"server node$n ${node_url#http://}"}
done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
config=${config//"bind :8080"/"bind 127.0.0.1:$port"}
printf '%s\n' "$config" > "$dir/haproxy.cfg"
haproxy -db -f "$dir/haproxy.cfg" > "$dir/haproxy.out" 2> "$dir/haproxy.err" &
pids+=($!)
lb="http://127.0.0.1:$port"
for _ in $(seq 1 500); do
    curl -fsS "$lb/healthz" >/dev/null 2>&1 && break
    sleep 0.02
done
sleep 2  # the first health checks of every node
echo "== $name-pg3: three nodes on PostgreSQL behind HAProxy; siege load --url $lb $* (CPU and memory: node1's)" | tee "$out/$name-pg3.txt"
"$load_bin" load --url "$lb" --server-pid "$first_pid" "${quiet[@]}" "$@" | tee -a "$out/$name-pg3.txt"
