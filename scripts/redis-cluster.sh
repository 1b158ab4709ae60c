#!/usr/bin/env bash
# A throwaway local Redis Cluster for tests: 3 masters with a replica each on free loopback ports.
#   scripts/redis-cluster.sh start DIR   starts it, writes DIR/nodes (host:port,...) and DIR/pids
#   scripts/redis-cluster.sh stop DIR    stops every node it started (by pid) and removes DIR
# Ports: the first 6 free ones from TOLLGATE_CLUSTER_PORT_BASE (default 7000) whose bus port (+10000)
# is free too. cluster-node-timeout is short (2 s) so that a killed master fails over within seconds.
set -euo pipefail
command=${1:?start or stop}
dir=${2:?a directory for the cluster files}
server=${TOLLGATE_CLUSTER_SERVER:-redis-server}
cli=${TOLLGATE_CLUSTER_CLI:-redis-cli}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  mkdir -p "$dir"
  local port=${TOLLGATE_CLUSTER_PORT_BASE:-7000} ports=()
  while [ "${#ports[@]}" -lt 6 ]; do
    if [ "$port" -gt 55000 ]; then echo "no free ports for a cluster" >&2; exit 1; fi
    if port_free "$port" && port_free "$((port + 10000))"; then ports+=("$port"); fi
    port=$((port + 1))
  done
  : >"$dir/pids"
  for port in "${ports[@]}"; do
    mkdir -p "$dir/$port"
    "$server" --port "$port" --bind 127.0.0.1 --cluster-enabled yes \
      --cluster-config-file "$dir/$port/nodes.conf" --cluster-node-timeout 2000 \
      --dir "$dir/$port" --save "" --appendonly no --maxmemory-policy noeviction \
      --daemonize yes --pidfile "$dir/$port/redis.pid" --logfile "$dir/$port/redis.log"
  done
  for port in "${ports[@]}"; do
    for _ in $(seq 1 100); do
      if "$cli" -p "$port" ping 2>/dev/null | grep -q PONG; then break; fi
      sleep 0.1
    done
    cat "$dir/$port/redis.pid" >>"$dir/pids"
  done
  local addresses=()
  for port in "${ports[@]}"; do addresses+=("127.0.0.1:$port"); done
  "$cli" --cluster create "${addresses[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log"
  # Every node must agree the cluster is up (all slots covered) before tests connect.
  for port in "${ports[@]}"; do
    for _ in $(seq 1 200); do
      if "$cli" -p "$port" cluster info | grep -q "cluster_state:ok"; then break; fi
      sleep 0.1
    done
  done
  # ... and every replica must be attached, or a failover test would find a master with none.
  for _ in $(seq 1 200); do
    if [ "$("$cli" -p "${ports[0]}" cluster nodes | grep -c slave)" -ge 3 ]; then break; fi
    sleep 0.1
  done
  (IFS=,; echo "${addresses[*]}") >"$dir/nodes"
  echo "redis cluster up: $(cat "$dir/nodes")"
}

stop() {
  if [ -f "$dir/pids" ]; then
    while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$dir/pids"
    # Wait for them to exit: a node still writing nodes.conf would keep its directory alive.
    while read -r pid; do
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done <"$dir/pids"
  fi
  rm -rf "$dir"
}

case "$command" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
