#!/usr/bin/env bash
# A 3-node RabbitMQ cluster on this machine, for tests and trials (no Docker): three
# `rabbitmq-server` nodes with their own node names, ports and data dirs under DIR, one Erlang
# cookie (DIR/.erlang.cookie, HOME=DIR for the nodes and the CLI), joined into one cluster by
# classic peer discovery (node 1 boots first, nodes 2 and 3 join it as they boot). No call of
# rabbitmqctl on the way (its start-up costs seconds on a loaded machine): readiness, membership
# and queue leaders come from each node's management API, stops are SIGTERM (graceful in Erlang)
# or SIGKILL.
#
#   ops/cluster/cluster.sh start DIR        start (or restart) the three nodes, join them; prints the URLs
#   ops/cluster/cluster.sh stop DIR         stop every node of DIR (gracefully, then SIGKILL after 60 s)
#   ops/cluster/cluster.sh status DIR       which nodes run, as each running node sees it
#   ops/cluster/cluster.sh urls DIR         the comma-separated ARCADE_AMQP_URL of the three nodes
#   ops/cluster/cluster.sh node-start DIR N start node N (1-3) again, waiting until it runs
#   ops/cluster/cluster.sh node-stop DIR N  stop node N gracefully (SIGTERM, waiting until it is gone)
#   ops/cluster/cluster.sh node-kill DIR N  SIGKILL node N's Erlang VM
#   ops/cluster/cluster.sh leaders DIR      "queue<TAB>leader node" of every quorum queue with a leader
#                                          (one being elected is left out)
#   ops/cluster/cluster.sh node-of DIR NODE the number (1-3) of node name NODE
#
# Ports: AMQP BASE+1..BASE+3, management 10000+BASE+1..3, Erlang distribution
# 20000+BASE+1..3, where BASE is
# ARCADE_CLUSTER_BASE_PORT (default 5700). Node names are arcade-<tag>-N@localhost, where tag is
# ARCADE_CLUSTER_TAG (default: the base port), so two clusters on one machine differ by base port.
# Plugins: management (on its own port) and the consistent-hash exchange. The machine's own node
# (rabbit@localhost, 5672/15672) is never touched.
set -euo pipefail

RABBIT_BIN="${RABBITMQ_BIN_DIR:-/usr/lib/rabbitmq/bin}"
BASE="${ARCADE_CLUSTER_BASE_PORT:-5700}"
TAG="${ARCADE_CLUSTER_TAG:-$BASE}"
TIMEOUT="${ARCADE_CLUSTER_TIMEOUT:-180}"

usage() { sed -n '2,20p' "$0" >&2; exit 2; }

[ $# -ge 2 ] || usage
command="$1"
DIR="$2"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"

node_name() { echo "arcade-$TAG-$1@localhost"; }
amqp_port() { echo $((BASE + $1)); }
dist_port() { echo $((20000 + BASE + $1)); }
http_port() { echo $((10000 + BASE + $1)); }

# GET PATH on node N's management API.
api() { curl -fsS --max-time 10 -u guest:guest "http://127.0.0.1:$(http_port "$1")/api/$2"; }

# The environment of node N (or of the CLI talking to it).
node_env() {
    local n="$1"
    local home="$DIR/node$n"
    mkdir -p "$home/log" "$home/mnesia"
    export HOME="$DIR"
    export RABBITMQ_CONF_ENV_FILE="$DIR/rabbitmq-env.conf"
    export RABBITMQ_CONFIG_FILE="$home/rabbitmq"
    export RABBITMQ_ADVANCED_CONFIG_FILE="$DIR/advanced.config"
    export RABBITMQ_ENABLED_PLUGINS_FILE="$DIR/enabled_plugins"
    export RABBITMQ_NODENAME
    RABBITMQ_NODENAME="$(node_name "$n")"
    export RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
    export RABBITMQ_NODE_PORT
    RABBITMQ_NODE_PORT="$(amqp_port "$n")"
    export RABBITMQ_DIST_PORT
    RABBITMQ_DIST_PORT="$(dist_port "$n")"
    export RABBITMQ_CTL_DIST_PORT_MIN=$((30000 + BASE + 10 * n))
    export RABBITMQ_CTL_DIST_PORT_MAX=$((30000 + BASE + 10 * n + 9))
    export RABBITMQ_MNESIA_BASE="$home/mnesia"
    export RABBITMQ_LOG_BASE="$home/log"
    export RABBITMQ_PID_FILE="$home/pid"
    export ERL_EPMD_ADDRESS=127.0.0.1
    export ERL_FLAGS="-kernel inet_dist_use_interface {127,0,0,1}"
}

prepare() {
    if [ ! -f "$DIR/.erlang.cookie" ]; then
        (umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$DIR/.erlang.cookie")
    fi
    chmod 400 "$DIR/.erlang.cookie"
    : >"$DIR/rabbitmq-env.conf"
    echo '[rabbitmq_management,rabbitmq_consistent_hash_exchange].' >"$DIR/enabled_plugins"
    cat >"$DIR/rabbitmq.conf" <<CONF
log.console = false
log.file.level = info
disk_free_limit.absolute = 50MB
cluster_formation.peer_discovery_backend = classic_config
cluster_formation.classic_config.nodes.1 = $(node_name 1)
cluster_formation.classic_config.nodes.2 = $(node_name 2)
cluster_formation.classic_config.nodes.3 = $(node_name 3)
CONF
    echo '[].' >"$DIR/advanced.config"
}

# The node's own rabbitmq.conf: the shared one plus its management port.
node_config() {
    cat "$DIR/rabbitmq.conf" >"$DIR/node$1/rabbitmq.conf"
    echo "management.tcp.ip = 127.0.0.1" >>"$DIR/node$1/rabbitmq.conf"
    echo "management.tcp.port = $(http_port "$1")" >>"$DIR/node$1/rabbitmq.conf"
}

running() {
    local pidfile="$DIR/node$1/pid"
    [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

start_node() {
    local n="$1"
    if running "$n"; then
        return 0
    fi
    rm -f "$DIR/node$n/pid"
    mkdir -p "$DIR/node$n"
    node_config "$n"
    (
        node_env "$n"
        cd "$DIR/node$n"
        setsid "$RABBIT_BIN/rabbitmq-server" >>"$DIR/node$n/log/stdout.log" 2>&1 </dev/null &
        echo $! >"$DIR/node$n/launcher"
    )
}

# Waits until node N answers on its management API and sees itself running in a cluster of
# COUNT nodes (default 3: a node started again has rejoined).
await_node() {
    local n="$1"
    local count="${2:-3}"
    local deadline=$((SECONDS + TIMEOUT))
    while [ "$SECONDS" -lt "$deadline" ]; do
        if ! kill -0 "$(cat "$DIR/node$n/launcher")" 2>/dev/null; then
            echo "node $n is not running (see $DIR/node$n/log)" >&2
            return 1
        fi
        if api "$n" "nodes?columns=name,running" 2>/dev/null | python3 2>/dev/null -c '
import json, sys
nodes = json.load(sys.stdin)
sys.exit(0 if len(nodes) == int(sys.argv[2]) and sys.argv[1] in [x["name"] for x in nodes if x.get("running")] else 1)
' "$(node_name "$n")" "$count"; then
            return 0
        fi
        sleep 0.5
    done
    echo "node $n did not join the cluster within $TIMEOUT s (see $DIR/node$n/log)" >&2
    return 1
}

# Stops node N: SIGTERM (graceful), then SIGKILL if it is still there after 60 s.
stop_node() {
    local pidfile="$DIR/node$1/pid"
    [ -f "$pidfile" ] || return 0
    local pid
    pid="$(cat "$pidfile")"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
}

urls() {
    local list=()
    for n in 1 2 3; do
        list+=("amqp://guest:guest@127.0.0.1:$(amqp_port "$n")/%2f")
    done
    (IFS=,; echo "${list[*]}")
}

case "$command" in
start)
    prepare
    start_node 1
    await_node 1 1
    start_node 2
    start_node 3
    await_node 2
    await_node 3
    urls
    ;;
stop)
    for n in 1 2 3; do stop_node "$n" & done
    wait
    ;;
status)
    for n in 1 2 3; do
        if running "$n"; then
            echo "node $n ($(node_name "$n")): running, amqp $(amqp_port "$n")"
            api "$n" "nodes?columns=name,running" | python3 -c '
import json, sys
for node in json.load(sys.stdin):
    print("  sees", node["name"], "running" if node.get("running") else "down")'
        else
            echo "node $n ($(node_name "$n")): not running"
        fi
    done
    ;;
urls)
    urls
    ;;
node-start)
    [ $# -eq 3 ] || usage
    start_node "$3"
    await_node "$3"
    ;;
node-stop)
    [ $# -eq 3 ] || usage
    stop_node "$3"
    ;;
node-kill)
    [ $# -eq 3 ] || usage
    running "$3" || { echo "node $3 is not running" >&2; exit 1; }
    kill -9 "$(cat "$DIR/node$3/pid")"
    rm -f "$DIR/node$3/pid"
    ;;
leaders)
    for n in 1 2 3; do
        if running "$n"; then
            api "$n" "queues?columns=name,type,leader,node" | python3 -c '
import json, sys
for queue in json.load(sys.stdin):
    leader = queue.get("leader") or queue.get("node")
    if queue.get("type") == "quorum" and leader:
        print(queue["name"], leader, sep="\t")'
            exit 0
        fi
    done
    echo "no node of $DIR is running" >&2
    exit 1
    ;;
node-of)
    [ $# -eq 3 ] || usage
    for n in 1 2 3; do
        [ "$(node_name "$n")" = "$3" ] && { echo "$n"; exit 0; }
    done
    echo "$3 is not a node of this cluster" >&2
    exit 1
    ;;
*)
    usage
    ;;
esac
