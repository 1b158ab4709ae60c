/**
 * `npx tsx bench/bytes-per-run.ts [runs] [--show <command or script>]`: the bytes a one-tool run sends
 * Redis, as RESP encodes them, by command (scripts by name, bench/lib/script-names.ts), for the raw-BullMQ
 * floor and Tollgate with an in-process worker: one process, 1 in flight after a warm-up, on a private
 * redis-server, as bench/trace-writes.ts. Every byte Redis receives it parses, and a script's arguments it
 * copies into Lua strings; this says which commands carry them. Redis's own count of bytes received is
 * printed beside the hook's, to check it. With `--show`, each call of that command in the last run with
 * its arguments' sizes, largest first (a script's as KEYS[i] and ARGV[i]) and their first characters:
 * what a large write carries. A diagnostic, not part of `npm run bench`.
 */
import { bullmqFloor } from "./contenders/bullmq-floor.js";
import type { IContender } from "./contenders/contender.js";
import { tollgateInProcess } from "./contenders/tollgate-in-process.js";
import { startModelServer } from "./lib/child-services.js";
import { argumentBytes, type IWrittenCommand, onCommandWritten, respBytes } from "./lib/command-bytes.js";
import { markdownTable } from "./lib/markdown-table.js";
import { startPrivateRedis } from "./lib/private-redis.js";
import { scriptNameOf, scriptNamesBySha } from "./lib/script-names.js";
import { describeArguments } from "./lib/written-arguments.js";

const runs = Number(process.argv.slice(2).find((argument) => /^\d+$/.test(argument)) ?? 200);
const showIndex = process.argv.indexOf("--show");
const shown = showIndex > 0 ? process.argv[showIndex + 1] : undefined;
const redis = await startPrivateRedis();
const model = await startModelServer();
const scriptNames = await scriptNamesBySha();

/** A row's name: a script's (`bullmq moveToFinished`, `tollgate finishRunScript`), else the command's. */
const labelOf = (command: IWrittenCommand) =>
  scriptNameOf(command.name, command.arguments[0], scriptNames) ?? command.name.toLowerCase();
/** `--show` takes a row's name whole or its last word, in any case (`finishRunScript`, `ZADD`). */
const isShown = (label: string) =>
  shown !== undefined &&
  [label, label.split(" ").at(-1)].some((name) => name?.toLowerCase() === shown.toLowerCase());

let counting = false;
const totals = new Map<string, { calls: number; bytes: number }>();
const lastRunCalls: string[] = [];
onCommandWritten((command) => {
  if (!counting) return;
  const sizes = command.arguments.map(argumentBytes);
  const bytes = respBytes(command.name, sizes);
  const label = labelOf(command);
  const entry = totals.get(label) ?? { calls: 0, bytes: 0 };
  entry.calls += 1;
  entry.bytes += bytes;
  totals.set(label, entry);
  if (isShown(label)) lastRunCalls.push(`${label}: ${bytes} B\n${describeArguments(command, sizes)}`);
});

async function bytesReceivedByRedis(): Promise<number> {
  const text = String(await redis.redis.info("stats"));
  return Number(/^total_net_input_bytes:(\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

const options = { redisUrl: redis.url, modelUrl: model.url, concurrency: 50 };
const floor = await bullmqFloor({ ...options, prefix: "bytes-floor" });
const tollgate = await tollgateInProcess({ ...options, prefix: "bytes-tollgate" });
try {
  for (const contender of [floor, tollgate] as IContender[]) {
    for (let index = 0; index < 20; index++) await contender.run(`warm-${index}`);
    totals.clear();
    const receivedBefore = await bytesReceivedByRedis();
    counting = true;
    for (let index = 0; index < runs; index++) {
      lastRunCalls.length = 0;
      await contender.run(`measured-${index}`);
    }
    counting = false;
    const received = (await bytesReceivedByRedis()) - receivedBefore;
    const sent = [...totals.values()].reduce((sum, { bytes }) => sum + bytes, 0);
    const rows = [...totals].sort(([, a], [, b]) => b.bytes - a.bytes);
    console.log(`\n${contender.name}: ${(sent / runs / 1024).toFixed(2)} KB per run sent to Redis`);
    console.log(
      `(Redis counted ${(received / runs / 1024).toFixed(2)} KB received per run, its INFO included)\n`,
    );
    console.log(
      markdownTable(
        ["command / script", "calls per run", "bytes per run", "share"],
        rows.map(([label, { calls, bytes }]) => [
          label,
          (calls / runs).toFixed(2),
          Math.round(bytes / runs),
          `${((bytes / sent) * 100).toFixed(1)}%`,
        ]),
      ),
    );
    if (shown !== undefined) {
      console.log(`\nThe last run's ${shown}, calls: ${lastRunCalls.length}`);
      for (const call of lastRunCalls) console.log(call);
    }
  }
} finally {
  await floor.close();
  await tollgate.close();
  await model.stop();
  await redis.stop();
}
// As bench/cpu-per-run.ts: the contenders' closed clients may still hold a timer or a socket.
process.exit(0);
