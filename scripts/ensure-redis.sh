#!/usr/bin/env bash
# Makes sure a Redis answers at REDIS_URL's host/port (default 127.0.0.1:6379): starts one when none
# answers, installs Debian's redis-server first when it is missing.
set -euo pipefail
host=127.0.0.1
port=6379
if [ -n "${REDIS_URL:-}" ]; then
  hostport=${REDIS_URL#*://}
  hostport=${hostport#*@}
  hostport=${hostport%%/*}
  host=${hostport%%:*}
  port=${hostport##*:}
fi

ping() { redis-cli -h "$host" -p "$port" ping 2>/dev/null | grep -q PONG; }

if ! command -v redis-server >/dev/null 2>&1; then
  echo "redis-server is missing: installing Debian's redis-server"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi
if ping; then
  echo "redis at $host:$port answers"
  exit 0
fi
echo "starting redis-server on $host:$port"
redis-server --daemonize yes --bind "$host" --port "$port" --save "" --appendonly no \
  --logfile "/tmp/tollgate-ci-redis-$port.log"
for _ in $(seq 1 50); do
  if ping; then echo "redis at $host:$port answers"; exit 0; fi
  sleep 0.1
done
echo "redis did not start; see /tmp/tollgate-ci-redis-$port.log" >&2
exit 1
