#!/usr/bin/env bash
# `npm run test:cluster`: starts a local Redis Cluster (3 masters, 3 replicas), runs the runtime,
# approvals and API integration groups against it with 1 partition and again with 3, then the
# partition test (3 partitions on 3 masters; a partition's slot migrated in the middle of runs and
# parked approvals), then the failover test (a replica takes over with CLUSTER FAILOVER, then a master
# is killed) last, since it leaves the cluster changed; then the Sentinel failover test (its own
# primary, replica and 3 sentinels: SENTINEL FAILOVER, then a killed primary).
#   --quick   a few files of each group with 1 and 3 partitions, then the cluster and Sentinel tests (CI)
# TOLLGATE_CLUSTER_SERVER/TOLLGATE_CLUSTER_CLI choose the server (valkey-server, valkey-cli).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=full
if [ "${1:-}" = "--quick" ]; then profile=quick; fi

dir=$(mktemp -d /tmp/tollgate-cluster.XXXXXX)
trap 'bash scripts/redis-cluster.sh stop "$dir"' EXIT
bash scripts/redis-cluster.sh start "$dir"
export TOLLGATE_TEST_CLUSTER_NODES
TOLLGATE_TEST_CLUSTER_NODES=$(cat "$dir/nodes")

if [ "$profile" = quick ]; then
  groups=(test/integration/runtime/first-run.test.ts test/integration/runtime/threads.test.ts
    test/integration/approvals/approvals.test.ts test/integration/api/runs.test.ts
    test/integration/runtime/partitions.test.ts test/integration/runtime/run-listing.test.ts
    test/integration/runtime/schedules.test.ts test/integration/api/run-fork.test.ts)
else
  groups=(test/integration/runtime test/integration/approvals test/integration/api)
fi
for partitions in 1 3; do
  echo "== cluster, $partitions partition(s): ${groups[*]}"
  TOLLGATE_TEST_PARTITIONS=$partitions npx vitest run --project integration --project slow "${groups[@]}"
done
echo "== cluster: partitions spread over the masters, slot migration"
npx vitest run --project integration test/integration/cluster/partitions.test.ts
echo "== cluster: failover"
npx vitest run --project integration test/integration/cluster/failover.test.ts
echo "== sentinel: failover (a primary, a replica, 3 sentinels of its own)"
env -u TOLLGATE_TEST_CLUSTER_NODES TOLLGATE_TEST_SENTINEL=1 \
  npx vitest run --project integration test/integration/cluster/sentinel-failover.test.ts
