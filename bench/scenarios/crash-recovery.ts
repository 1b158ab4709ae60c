import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startScriptedModel } from "../../src/model/scripted/index.js";
import { clientInternals } from "../../src/producer/client-internals.js";
import { GatewayClient } from "../../src/producer/index.js";
import { benchGateway } from "../bench-gateway.js";
import { startPrivateRedis } from "../lib/private-redis.js";
import type { IScenarioResult } from "../lib/scenario.js";

const workerScript = fileURLToPath(new URL("../bench-worker-process.ts", import.meta.url));

/**
 * Not in the default run (it takes a minute of waiting for locks): `npm run bench -- crash-recovery`.
 * SIGKILL a worker process while a tool call runs, start another: how long until the tool call runs
 * again on the new worker (the killed one's lock must expire and a stalled check must see it).
 */
export async function crashRecovery(): Promise<IScenarioResult> {
  const settings: Array<[string, Record<string, number>]> = [
    ["Tollgate defaults (lock 10 s, stalled check 5 s)", {}],
    ["lock 2 s, stalled check 1 s", { lockDurationMs: 2_000, stalledIntervalMs: 1_000 }],
  ];
  const data: Record<string, number[]> = {};
  const lines = ["| settings | trials | SIGKILL → tool call running again (each trial) |", "|---|---|---|"];
  for (const [label, options] of settings) {
    const trials: number[] = [];
    for (let trial = 0; trial < 3; trial++) trials.push(await oneTrial(options));
    data[label] = trials;
    lines.push(
      `| ${label} | ${trials.length} | ${trials.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(", ")} |`,
    );
  }
  const markdown = [
    "A second worker process is already running when the first is killed (the kill lands at a random",
    "point of the stalled-check cycle). BullMQ's own defaults (lock 30 s, check 30 s) took about 60 s here.",
    "",
    ...lines,
  ].join("\n");
  return { title: "Crash recovery", markdown, data };
}

async function oneTrial(options: Record<string, number>): Promise<number> {
  const privateRedis = await startPrivateRedis();
  const model = await startScriptedModel({ port: 0 });
  const runtime = { redisUrl: privateRedis.url, prefix: `crash-${randomUUID().slice(0, 8)}`, ...options };
  const client = new GatewayClient({ gateway: benchGateway, runtime });
  const spawnWorker = () => {
    const child = spawn(process.execPath, ["--import", "tsx", workerScript], {
      env: { ...process.env, BENCH_RUNTIME: JSON.stringify(runtime), MODEL_URL: model.url },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const ready = new Promise<void>((resolve) => child.stdout!.on("data", () => resolve()));
    return { child, ready };
  };
  try {
    const first = spawnWorker();
    await first.ready;
    const { runId } = await client.run({
      input: JSON.stringify({
        script: [{ calls: [{ name: "slow", input: { ms: 60_000 } }] }, { text: "ok" }],
      }),
      userContext: { userId: "bench" },
    });
    const callId = `${runId}-s0-c0`;
    const processedOn = async () =>
      (await clientInternals(client).runtime.queues.tools.getJob(callId))?.processedOn;
    let firstStart: number | undefined;
    while (!firstStart) {
      firstStart = await processedOn();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Let the first worker own the lock for a random part of the stalled-check cycle.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * (options.stalledIntervalMs ?? 5_000)));
    const second = spawnWorker();
    await second.ready;
    const killedAt = Date.now();
    first.child.kill("SIGKILL");
    let restartedAt: number | undefined;
    while (!restartedAt) {
      const started = await processedOn();
      if (started && started > killedAt) restartedAt = started;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.cancel(runId);
    second.child.kill("SIGTERM");
    await new Promise((resolve) => second.child.once("exit", resolve));
    return restartedAt - killedAt;
  } finally {
    await client.close();
    await model.close();
    await privateRedis.stop();
  }
}
