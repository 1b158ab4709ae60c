import { benchSetup, oneToolScript, percentile } from "./bench-setup.js";

/** Runs with one tool call each, all enqueued at once, one worker process. */
export async function throughput(): Promise<string> {
  const lines = [
    "| worker concurrency | runs | wall time | runs/s | latency p50 | latency p99 |",
    "|---|---|---|---|---|---|",
  ];
  for (const concurrency of [8, 50]) {
    const setup = await benchSetup();
    try {
      await setup.startWorker(concurrency);
      await setup.client.ask({ input: oneToolScript("warm"), userContext: { userId: "bench" } });
      const runs = 500;
      const started = performance.now();
      const ids = await Promise.all(
        Array.from({ length: runs }, (_, index) =>
          setup.client.run({ input: oneToolScript(`v${index}`), userContext: { userId: "bench" } }),
        ),
      );
      const responses = await Promise.all(ids.map(({ runId }) => setup.client.wait(runId)));
      const wall = (performance.now() - started) / 1000;
      const failed = responses.filter((response) => response.status !== "completed").length;
      if (failed > 0) throw new Error(`${failed} runs did not complete`);
      const latencies: number[] = [];
      for (const { runId } of ids) {
        const stored = await setup.client.runtime.runs.load(runId);
        latencies.push(stored!.state.finishedAt! - stored!.state.createdAt);
      }
      latencies.sort((a, b) => a - b);
      lines.push(
        `| ${concurrency} | ${runs} | ${wall.toFixed(2)} s | ${(runs / wall).toFixed(0)} | ${percentile(latencies, 0.5)} ms | ${percentile(latencies, 0.99)} ms |`,
      );
    } finally {
      await setup.close();
    }
  }
  return [
    "Each run: model call → one tool job → model call → answer. Producer, worker and scripted model share this",
    "process and the 2 cores with Redis; latency is enqueue → final checkpoint.",
    "",
    ...lines,
  ].join("\n");
}
