import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { tollgateCli } from "../contenders/tollgate-cli.js";
import { withInFlight } from "../lib/alternate.js";
import { buildWorker, type IBuiltWorker } from "../lib/built-worker.js";
import type { IBenchEnvironment } from "../lib/environment.js";
import { markdownTable } from "../lib/markdown-table.js";
import { round } from "../lib/percentiles.js";
import { processRssMb } from "../lib/process-stats.js";
import type { IScenarioResult } from "../lib/scenario.js";

const inFlight = 100;

/** RSS figures of one worker process, MB. */
interface IFootprint {
  afterStartMb: number;
  idleMb: number;
  inFlightMb: number;
}

/**
 * Scenario 6: RSS of one `tollgate worker` process (concurrency 100, logs and metrics on), idle after
 * a warm-up, then with 100 runs in flight (each in a tool call that sleeps until all 100 are running).
 * Twice: the worker as it ships (the compiled CLI, a JavaScript gateway: the figure the target applies
 * to) and the worker run from `src/` through tsx (development: the TypeScript transformer stays loaded).
 */
export async function workerFootprint(environment: IBenchEnvironment): Promise<IScenarioResult> {
  const slowMs = environment.quick ? 4_000 : 6_000;
  const built = await buildWorker();
  const compiled = await measure(environment, "tg-footprint-built", slowMs, built);
  const source = await measure(environment, "tg-footprint", slowMs, undefined);
  return {
    title: "Worker footprint (RSS of one `tollgate worker` process)",
    markdown: [
      `One worker process, concurrency ${inFlight}, logs at info and metrics served. Idle: after 200 warm-up runs;`,
      `in flight: peak while ${inFlight} runs each sat in a ${slowMs} ms tool call at once. Compiled: \`src/\``,
      "built with tsconfig.build.json (what `dist/` ships) and a JavaScript gateway, no TypeScript loader;",
      "from source: `bin/tollgate.js` through tsx with the TypeScript bench gateway.",
      "",
      markdownTable(
        ["state", "compiled worker RSS MB", "worker from source (tsx) RSS MB"],
        [
          ["just started", compiled.afterStartMb, source.afterStartMb],
          ["idle after warm-up", compiled.idleMb, source.idleMb],
          [`${inFlight} runs in flight`, compiled.inFlightMb, source.inFlightMb],
        ],
      ),
    ].join("\n"),
    data: { ...compiled, source },
  };
}

async function measure(
  environment: IBenchEnvironment,
  prefix: string,
  slowMs: number,
  built: IBuiltWorker | undefined,
): Promise<IFootprint> {
  const contender = await tollgateCli({
    redisUrl: environment.redis.url,
    modelUrl: environment.model.url,
    prefix,
    concurrency: inFlight,
    ...(built ? { built } : {}),
  });
  const tools = new Queue("tools", { prefix, connection: new Redis(environment.redis.url) });
  const pid = contender.workers[0]!.pid;
  try {
    const afterStart = await processRssMb(pid);
    await withInFlight(200, 20, (index) => contender.run(`footprint-warm-${index}`));
    const idle = await processRssMb(pid);
    const runs = Array.from({ length: inFlight }, (_, index) =>
      contender.client.ask({
        input: JSON.stringify({
          script: [{ calls: [{ name: "slow", input: { ms: slowMs } }] }, { text: "done" }],
        }),
        userContext: { userId: `user-${index}` },
      }),
    );
    let peak = 0;
    let reached = false;
    // Long enough for all of them to be running at once even on a loaded machine.
    const deadline = Date.now() + slowMs + 20_000;
    while (Date.now() < deadline) {
      const active = await tools.getActiveCount();
      peak = Math.max(peak, await processRssMb(pid));
      if (active >= inFlight) reached = true;
      else if (reached) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const responses = await Promise.all(runs);
    const failed = responses.filter((response) => response.status !== "completed").length;
    if (!reached || failed > 0)
      throw new Error(`footprint: ${inFlight} runs never in flight at once, or ${failed} failed`);
    return { afterStartMb: round(afterStart, 1), idleMb: round(idle, 1), inFlightMb: round(peak, 1) };
  } finally {
    await tools.close();
    await contender.close();
  }
}
