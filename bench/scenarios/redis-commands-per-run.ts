import { countClientCommands, difference, serverCommandStats, total } from "../redis-counters.js";
import { benchSetup, oneToolScript } from "./bench-setup.js";

/**
 * The Redis cost of one run with one tool call, from enqueue to the response: commands sent by the
 * clients (producer and worker, in this process) and commands Redis executed (INFO commandstats, which
 * also counts the commands inside Lua scripts). Sequential runs, averaged; idle polling is included,
 * which is why the worker's blocking reads show up.
 */
export async function redisCommandsPerRun(): Promise<string> {
  const counter = countClientCommands();
  const setup = await benchSetup();
  try {
    await setup.startWorker(8);
    // Warm up: scripts loaded, connections open.
    for (let index = 0; index < 5; index++) {
      await setup.client.ask({ input: oneToolScript("warm"), userContext: { userId: "bench" } });
    }
    const runs = 50;
    counter.reset();
    const serverBefore = await serverCommandStats(setup.redis);
    for (let index = 0; index < runs; index++) {
      await setup.client.ask({ input: oneToolScript(`v${index}`), userContext: { userId: "bench" } });
    }
    const serverAfter = await serverCommandStats(setup.redis);
    const client = counter.read();
    const server = difference(serverAfter, serverBefore);
    delete server.info;
    const rows = (counts: Record<string, number>) =>
      Object.entries(counts)
        .sort((a, b) => b[1] - a[1])
        .map(([name, value]) => `${name} ${(value / runs).toFixed(1)}`)
        .join(", ");
    return [
      `${runs} sequential runs, each: one model call with one tool call, one tool job, one model call answering.`,
      "",
      "| measured per run | count |",
      "|---|---|",
      `| commands sent by the clients (GatewayClient.ask + worker) | ${(total(client) / runs).toFixed(1)} |`,
      `| of which Lua script calls (evalsha/eval) | ${(((client.evalsha ?? 0) + (client.eval ?? 0)) / runs).toFixed(1)} |`,
      `| commands Redis executed (commandstats, Lua inner commands included) | ${(total(server) / runs).toFixed(1)} |`,
      "",
      `Client commands by name: ${rows(client)}`,
      "",
      `Server commands by name: ${rows(server)}`,
    ].join("\n");
  } finally {
    await setup.close();
  }
}
