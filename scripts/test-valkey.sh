#!/usr/bin/env bash
# `npm run test:valkey`: the runtime, approvals and API integration groups against Valkey on a single
# node (a throwaway valkey-server on a free loopback port, its own directory, stopped by pid at exit).
#   --quick   one file of each group (CI)
# Installs Debian's valkey-server from bookworm-backports when it is missing (CI runs as root).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=full
if [ "${1:-}" = "--quick" ]; then profile=quick; fi

if ! command -v valkey-server >/dev/null 2>&1; then
  echo "valkey-server is missing: installing it from Debian's bookworm-backports"
  if ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo 'deb http://deb.debian.org/debian bookworm-backports main' >/etc/apt/sources.list.d/backports.list
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t bookworm-backports valkey-server >/dev/null
fi

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=${TOLLGATE_VALKEY_PORT_BASE:-7300}
until port_free "$port"; do port=$((port + 1)); done

dir=$(mktemp -d /tmp/tollgate-valkey.XXXXXX)
stop() {
  if [ -f "$dir/valkey.pid" ]; then kill "$(cat "$dir/valkey.pid")" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap stop EXIT
valkey-server --port "$port" --bind 127.0.0.1 --dir "$dir" --save "" --appendonly no \
  --maxmemory-policy noeviction --daemonize yes --pidfile "$dir/valkey.pid" --logfile "$dir/valkey.log"
for _ in $(seq 1 100); do
  if valkey-cli -p "$port" ping 2>/dev/null | grep -q PONG; then break; fi
  sleep 0.1
done
echo "== valkey $(valkey-cli -p "$port" info server | grep -o 'valkey_version:[0-9.]*') on 127.0.0.1:$port"

if [ "$profile" = quick ]; then
  groups=(test/integration/runtime/first-run.test.ts test/integration/runtime/threads.test.ts
    test/integration/approvals/approvals.test.ts test/integration/api/runs.test.ts
    test/integration/api/approvals.test.ts)
else
  groups=(test/integration/runtime test/integration/approvals test/integration/api)
fi
echo "== valkey: ${groups[*]}"
REDIS_URL="redis://127.0.0.1:$port" npx vitest run --project integration --project slow "${groups[@]}"
