# Shared by the load benchmarks: start a fresh `siege serve --bench-routes` on a free port with its
# database in $BENCH_DIR, and stop it. Sourced, not run.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${SIEGE_BIN:-$(realpath -m "${CARGO_TARGET_DIR:-$root/target}")/release/siege}
# The load generator: the same binary unless SIEGE_LOAD_BIN names another (to load an older
# server with the current client, old beside new).
load_bin=${SIEGE_LOAD_BIN:-$bin}
out=${BENCH_OUT:-$root/target/bench}
mkdir -p "$out"
# Thousands of sockets on both ends of one machine.
ulimit -n "$(ulimit -Hn)"

# start_server DIR: serve DIR/siege.db; sets $pid, $url and $ready_ms (milliseconds until it listened).
start_server() {
    serve_at "$1/serve" "sqlite://$1/siege.db"
}

# serve_at LOG DATABASE [FLAGS...]: serve DATABASE with the benchmark's settings and FLAGS,
# its output in LOG.out and LOG.err; sets $pid, $url and $ready_ms.
serve_at() {
    local log=$1 db=$2 t0
    shift 2
    t0=$(date +%s%N)
    # The load comes from one address: the per-client rates and caps are off.
    "$bin" serve --bench-routes --frame-rate 1000000 --addr 127.0.0.1:0 \
        --create-rate 0 --join-rate 0 --max-open-games 0 --max-connections-per-address 0 \
        --database "$db" --web-dir "$root/web" "$@" \
        > "$log.out" 2>> "$log.err" &
    pid=$!
    for _ in $(seq 1 360000); do
        if url=$(grep -o 'http://[0-9.:]*' "$log.out" 2>/dev/null) && [ -n "$url" ]; then
            ready_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || { cat "$log.err" >&2; return 1; }
        sleep 0.005
    done
    echo "the server did not listen within 30 minutes" >&2
    return 1
}

stop_server() {
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
