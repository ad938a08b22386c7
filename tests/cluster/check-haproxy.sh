#!/usr/bin/env bash
# Runs deploy/haproxy.cfg against three stand-in nodes on loopback and checks what the cluster
# relies on: every URL of one game (/api/games/{id}, /api/games/{id}/..., /ws/games/{id}, in
# any case, with any query) reaches the same node; different games spread over all three; when
# a node goes down only its own games move, and they come back when it returns (consistent
# hashing); the nodes see the client's address in X-Forwarded-For.
#
# The stand-ins are tiny Python HTTP servers that answer every request with their name in
# `x-siege-node` (as siege nodes do) and 200 on /healthz. The config is copied with its server
# addresses and its port rewritten to free loopback ports; nothing else in it changes.
# Needs haproxy, python3 and curl. Self-contained: cleans up after itself, exits non-zero on
# the first failure. CI runs it as `bash tests/cluster/check-haproxy.sh`.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cfg="$root/deploy/haproxy.cfg"

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "check-haproxy: FAIL: $*" >&2
    if [ -f "$work/haproxy.log" ]; then
        echo "--- haproxy's log (last lines):" >&2
        tail -n 20 "$work/haproxy.log" >&2
    fi
    exit 1
}

# A stand-in node: NAME PORTFILE [PORT]. Binds PORT (or a free one), writes the port to
# PORTFILE once it listens, and echoes the X-Forwarded-For it was given.
cat >"$work/standin.py" <<'PY'
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

name, portfile = sys.argv[1], sys.argv[2]
port = int(sys.argv[3]) if len(sys.argv) > 3 else 0

class Node(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self):
        body = (name + "\n").encode()
        self.send_response(200)
        self.send_header("x-siege-node", name)
        self.send_header("x-seen-forwarded-for", self.headers.get("x-forwarded-for", "-"))
        self.send_header("content-type", "text/plain")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # a health check that read the status line and hung up

    do_GET = do_POST = do_HEAD = answer

    def log_message(self, *args):
        pass

class Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # HAProxy resets idle keep-alive connections and health checks; not an error here.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

server = Server(("127.0.0.1", port), Node)
with open(portfile + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os
os.rename(portfile + ".tmp", portfile)
server.serve_forever()
PY

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_for_file() { # PATH [TEST]: until `test TEST PATH` holds (default -s: non-empty)
    for _ in $(seq 100); do test "${2:--s}" "$1" && return 0; sleep 0.1; done
    fail "no $1 after 10 s"
}

declare -A port node_pid
start_node() { # NAME [PORT]
    rm -f "$work/$1.port"
    python3 "$work/standin.py" "$1" "$work/$1.port" ${2:+"$2"} &
    node_pid[$1]=$!
    pids+=("$!")
    wait_for_file "$work/$1.port"
    port[$1]=$(cat "$work/$1.port")
}
for n in node1 node2 node3; do start_node "$n"; done
hport=$(free_port)
echo "stand-ins: node1 :${port[node1]}, node2 :${port[node2]}, node3 :${port[node3]}; haproxy :$hport"

# The copy: the three servers at the stand-ins, the frontend on a free loopback port, and an
# admin socket to read the servers' states from (the only line added).
sed -e "s/ node1:8080/ 127.0.0.1:${port[node1]}/" \
    -e "s/ node2:8080/ 127.0.0.1:${port[node2]}/" \
    -e "s/ node3:8080/ 127.0.0.1:${port[node3]}/" \
    -e "s/^\( *\)bind :8080\$/\1bind 127.0.0.1:$hport/" \
    -e "s|^global\$|global\n    stats socket $work/admin.sock level admin|" \
    "$cfg" >"$work/haproxy.cfg"
grep -q "bind 127.0.0.1:$hport" "$work/haproxy.cfg" || fail "the copy's bind line was not rewritten"
[ "$(grep -c ' 127.0.0.1:' "$work/haproxy.cfg")" -eq 7 ] ||
    fail "expected 6 server lines and 1 bind rewritten to loopback in the copy"
grep -q 'node[123]:8080' "$work/haproxy.cfg" && fail "a server line was not rewritten"
haproxy -c -q -f "$work/haproxy.cfg" || fail "haproxy -c refused the copy"

haproxy -db -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 &
pids+=("$!")

base="http://127.0.0.1:$hport"
# The node that answered URL (extra curl arguments allowed), or "none".
node_of() {
    local url=$1 headers; shift
    # A failed request is "none" (and fails the check that asked), not a silent exit.
    headers=$(curl -s -o /dev/null -D - --max-time 5 "$@" "$base$url") || headers=""
    printf '%s\n' "$headers" |
        tr -d '\r' | awk -F': ' 'tolower($1)=="x-siege-node" {print $2; found=1} END {if (!found) print "none"}'
}
# The state (UP, DOWN, ...) of server backend/name, from the admin socket.
state_of() {
    python3 - "$work/admin.sock" "$1" "$2" <<'PY'
import csv, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"show stat\n")
text = s.makefile().read()
rows = csv.reader(l for l in text.splitlines() if l and not l.startswith("#"))
for r in rows:
    if r[0] == sys.argv[2] and r[1] == sys.argv[3]:
        print(r[17].split()[0])
        break
else:
    print("missing")
PY
}
wait_state() { # STATE SERVER...: every server of both backends in STATE (up to 20 s)
    local want=$1; shift
    for _ in $(seq 200); do
        local ok=1
        for s in "$@"; do
            for b in games any_node; do
                [ "$(state_of "$b" "$s" 2>/dev/null || echo none)" = "$want" ] || ok=0
            done
        done
        [ $ok = 1 ] && return 0
        sleep 0.1
    done
    fail "servers $* not $want after 20 s"
}
wait_for_file "$work/admin.sock" -S
wait_state UP node1 node2 node3
echo "haproxy is up; its health checks pass on all three nodes"

# Round robin for what is not one game's: the page and the game list reach every node.
declare -A seen=()
for _ in $(seq 6); do seen[$(node_of /)]=1; seen[$(node_of /api/games)]=1; done
for n in node1 node2 node3; do
    [ -n "${seen[$n]:-}" ] || fail "/ and /api/games never reached $n (round robin)"
done
[ -z "${seen[none]:-}" ] || fail "a request for / or /api/games got no node"
echo "round robin: / and /api/games reach all three nodes"

xff=$(curl -s -o /dev/null -D - --max-time 5 "$base/api/games" | tr -d '\r' |
    awk -F': ' 'tolower($1)=="x-seen-forwarded-for" {print $2}') || xff="(no answer)"
[ "$xff" = "127.0.0.1" ] || fail "the node saw X-Forwarded-For '$xff', not the client's 127.0.0.1"
echo "X-Forwarded-For: the node sees the client's address"

# Deterministic game ids (UUIDs, as the server makes), so a run is reproducible.
mapfile -t ids < <(python3 -c '
import random, uuid
r = random.Random(1900)
for _ in range(48):
    print(uuid.UUID(int=r.getrandbits(128), version=4))')

# The node every URL of game ID reaches; fails if they disagree.
game_node() {
    local id=$1 upper first n url
    upper=$(printf '%s' "$id" | tr a-f A-F)
    first=$(node_of "/api/games/$id")
    [ "$first" != none ] || fail "/api/games/$id got no node"
    for url in "/api/games/$id/log" "/api/games/$id/state?at=3" "/api/games/$id/chat" \
        "/api/games/$upper/log" "/api/games/$id?after=1"; do
        n=$(node_of "$url")
        [ "$n" = "$first" ] || fail "$url reached $n but /api/games/$id reached $first"
    done
    n=$(node_of "/ws/games/$id" -H 'Connection: Upgrade' -H 'Upgrade: websocket' \
        -H 'Sec-WebSocket-Version: 13' -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==')
    [ "$n" = "$first" ] || fail "/ws/games/$id reached $n but /api/games/$id reached $first"
    n=$(node_of "/api/games/$id/join" -X POST)
    [ "$n" = "$first" ] || fail "POST /api/games/$id/join reached $n but GET reached $first"
    printf '%s' "$first"
}

declare -A owner=() count=([node1]=0 [node2]=0 [node3]=0)
for id in "${ids[@]}"; do
    owner[$id]=$(game_node "$id")
    count[${owner[$id]}]=$((count[${owner[$id]}] + 1))
done
echo "one node per game: ${#ids[@]} games; node1 ${count[node1]}, node2 ${count[node2]}, node3 ${count[node3]}"
for n in node1 node2 node3; do
    [ "${count[$n]}" -gt 0 ] || fail "no game of ${#ids[@]} hashed to $n"
done

# Node 3 goes down: its games move to the other two, the others' games stay where they are.
kill "${node_pid[node3]}"
wait "${node_pid[node3]}" 2>/dev/null || true
wait_state DOWN node3
moved=0
for id in "${ids[@]}"; do
    n=$(game_node "$id")
    if [ "${owner[$id]}" = node3 ]; then
        [ "$n" = node1 ] || [ "$n" = node2 ] || fail "game $id of the dead node3 reached $n"
        moved=$((moved + 1))
    else
        [ "$n" = "${owner[$id]}" ] || fail "game $id moved from ${owner[$id]} to $n when node3 went down"
    fi
done
echo "node3 down: its $moved games moved to node1 and node2, no other game moved"

# Node 3 comes back on its port: its games return to it, and again nothing else moves.
start_node node3 "${port[node3]}"
wait_state UP node3
for id in "${ids[@]}"; do
    n=$(game_node "$id")
    [ "$n" = "${owner[$id]}" ] || fail "game $id reached $n, not ${owner[$id]}, after node3 came back"
done
echo "node3 back: every game is on its first node again"
echo "check-haproxy: all checks passed"
