/**
 * `npx tsx bench/live-per-run.ts <floor|floor-records|tollgate|tollgate-compiled> [in flight] [snapshots]`:
 * what a contender keeps alive per run in flight, alone in its process on a private redis-server and
 * scripted model. After a warm-up of 600 runs, one heap snapshot with nothing in flight, then `snapshots`
 * (default 3) while `in flight` (default 50) runs go on, one every 500 runs finished; each snapshot follows
 * a full collection, so it holds only what is reachable. Prints the difference per run in flight, averaged,
 * by kind of object (plain objects by their first properties), KB and count.
 *
 * What a run holds for its whole length outlives the young generation's collections and is promoted
 * (bench/gc-per-run.ts counts the bytes): this shows what it is. JIT code compiled between the snapshots
 * is in the difference too, and not per run: the total is printed with and without it. A diagnostic for
 * issue 26, not part of `npm run bench`.
 */
import { Session } from "node:inspector/promises";
import { withInFlight } from "./lib/alternate.js";
import { startModelServer } from "./lib/child-services.js";
import { isLoneContender, loneContenderChoices, startLoneContender } from "./lib/lone-contender.js";
import { startPrivateRedis } from "./lib/private-redis.js";

const [which = "tollgate", inFlightArgument = "50", snapshotsArgument = "3"] = process.argv.slice(2);
if (!isLoneContender(which)) {
  console.error(`usage: npx tsx bench/live-per-run.ts ${loneContenderChoices} [in flight] [snapshots]`);
  process.exit(2);
}
const inFlight = Number(inFlightArgument);
const snapshots = Number(snapshotsArgument);
const runsBetweenSnapshots = 500;

interface IHeapSnapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** Bytes and count by kind of object in a snapshot. */
type TTally = Map<string, { bytes: number; count: number }>;

/** The kind an object is counted under: its type and constructor; a plain object by its first properties. */
function tally(heap: IHeapSnapshot): TTally {
  const { node_fields, node_types, edge_fields, edge_types } = heap.snapshot.meta;
  const nodeWidth = node_fields.length;
  const edgeWidth = edge_fields.length;
  const [typeAt, nameAt, sizeAt, edgeCountAt] = ["type", "name", "self_size", "edge_count"].map((field) =>
    node_fields.indexOf(field),
  ) as [number, number, number, number];
  const propertyEdge = edge_types[0].indexOf("property");
  const byKind: TTally = new Map();
  let edge = 0;
  for (let node = 0; node < heap.nodes.length; node += nodeWidth) {
    const type = node_types[0][heap.nodes[node + typeAt]!]!;
    const name = heap.strings[heap.nodes[node + nameAt]!]!;
    const edges = heap.nodes[node + edgeCountAt]!;
    let kind: string;
    if (type === "object" && name === "Object") {
      const properties: string[] = [];
      for (let index = 0; index < edges && properties.length < 5; index++) {
        const at = edge + index * edgeWidth;
        if (heap.edges[at] === propertyEdge) properties.push(heap.strings[heap.edges[at + 1]!]!);
      }
      kind = `Object {${properties.join(", ")}}`;
    } else if (type === "object" || type === "native") kind = `${type} ${name.slice(0, 50)}`;
    else kind = type;
    edge += edges * edgeWidth;
    const entry = byKind.get(kind) ?? { bytes: 0, count: 0 };
    entry.bytes += heap.nodes[node + sizeAt]!;
    entry.count += 1;
    byKind.set(kind, entry);
  }
  return byKind;
}

const redis = await startPrivateRedis();
const model = await startModelServer();
const contender = await startLoneContender(which, {
  redisUrl: redis.url,
  modelUrl: model.url,
  prefix: "live",
  concurrency: inFlight,
});
const session = new Session();
session.connect();
async function takeSnapshot(): Promise<TTally> {
  const chunks: string[] = [];
  const onChunk = (message: { params: { chunk: string } }) => chunks.push(message.params.chunk);
  session.on("HeapProfiler.addHeapSnapshotChunk", onChunk);
  await session.post("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  session.off("HeapProfiler.addHeapSnapshotChunk", onChunk);
  return tally(JSON.parse(chunks.join("")) as IHeapSnapshot);
}

try {
  await withInFlight(600, inFlight, (index) => contender.run(`warm-up-${index}`));
  const idle = await takeSnapshot();
  const busy: TTally[] = [];
  let finished = 0;
  let nextSnapshot = runsBetweenSnapshots;
  let snapshotTaken: Promise<void> = Promise.resolve();
  await withInFlight(runsBetweenSnapshots * (snapshots + 1), inFlight, async (index) => {
    await contender.run(`measured-${index}`);
    finished += 1;
    if (finished === nextSnapshot && busy.length < snapshots) {
      nextSnapshot += runsBetweenSnapshots;
      // The other runs stay in flight: the snapshot is taken while they wait on Redis and the model.
      snapshotTaken = snapshotTaken.then(async () => {
        busy.push(await takeSnapshot());
      });
      await snapshotTaken;
    }
  });
  const perRun = new Map<string, { bytes: number; count: number }>();
  for (const snapshot of busy) {
    for (const [kind, entry] of snapshot) {
      const before = idle.get(kind) ?? { bytes: 0, count: 0 };
      const sum = perRun.get(kind) ?? { bytes: 0, count: 0 };
      sum.bytes += (entry.bytes - before.bytes) / inFlight / busy.length;
      sum.count += (entry.count - before.count) / inFlight / busy.length;
      perRun.set(kind, sum);
    }
  }
  const totals = busy.map((snapshot) => {
    let bytes = 0;
    for (const [kind, entry] of snapshot)
      if (kind !== "code") bytes += entry.bytes - (idle.get(kind)?.bytes ?? 0);
    return (bytes / inFlight / 1024).toFixed(1);
  });
  console.log(`each snapshot, KB per run in flight without compiled code: ${totals.join(", ")}`);
  const rows = [...perRun].sort((first, second) => second[1].bytes - first[1].bytes);
  const total = rows.reduce((sum, [, entry]) => sum + entry.bytes, 0);
  const code = rows.filter(([kind]) => kind === "code").reduce((sum, [, entry]) => sum + entry.bytes, 0);
  console.log(
    `${contender.name}: ${(total / 1024).toFixed(1)} KB live per run in flight, ` +
      `${((total - code) / 1024).toFixed(1)} KB without compiled code (${busy.length} snapshots, ${inFlight} in flight)`,
  );
  for (const [kind, entry] of rows.slice(0, 30)) {
    console.log(
      `  ${(entry.bytes / 1024).toFixed(2).padStart(6)} KB ${entry.count.toFixed(1).padStart(6)}  ${kind}`,
    );
  }
} finally {
  session.disconnect();
  await contender.close();
  await model.stop();
  await redis.stop();
}
process.exit(0);
