import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { tollgateCli } from "../contenders/tollgate-cli.js";
import { withInFlight } from "../lib/alternate.js";
import type { IBenchEnvironment } from "../lib/environment.js";
import { markdownTable } from "../lib/markdown-table.js";
import { round } from "../lib/percentiles.js";
import { processRssMb } from "../lib/process-stats.js";
import type { IScenarioResult } from "../lib/scenario.js";

const inFlight = 100;

/**
 * Scenario 6: RSS of one `tollgate worker` process (concurrency 100, logs and metrics on), idle after
 * a warm-up, then with 100 runs in flight (each in a tool call that sleeps until all 100 are running).
 */
export async function workerFootprint(environment: IBenchEnvironment): Promise<IScenarioResult> {
  const prefix = "tg-footprint";
  const contender = await tollgateCli({
    redisUrl: environment.redis.url,
    modelUrl: environment.model.url,
    prefix,
    concurrency: inFlight,
  });
  const tools = new Queue("tools", { prefix, connection: new Redis(environment.redis.url) });
  const pid = contender.workers[0]!.pid;
  try {
    const afterStart = await processRssMb(pid);
    await withInFlight(200, 20, (index) => contender.run(`footprint-warm-${index}`));
    const idle = await processRssMb(pid);
    // Long enough for all of them to be running at once even on a loaded machine.
    const slowMs = environment.quick ? 4_000 : 6_000;
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
    const figures = {
      afterStartMb: round(afterStart, 1),
      idleMb: round(idle, 1),
      inFlightMb: round(peak, 1),
    };
    return {
      title: "Worker footprint (RSS of one `tollgate worker` process)",
      markdown: [
        `One worker process, concurrency ${inFlight}, logs at info and metrics served. Idle: after 200 warm-up runs;`,
        `in flight: peak while ${inFlight} runs each sat in a ${slowMs} ms tool call at once.`,
        "",
        markdownTable(
          ["state", "RSS MB"],
          [
            ["just started", figures.afterStartMb],
            ["idle after warm-up", figures.idleMb],
            [`${inFlight} runs in flight`, figures.inFlightMb],
          ],
        ),
      ].join("\n"),
      data: figures,
    };
  } finally {
    await tools.close();
    await contender.close();
  }
}
