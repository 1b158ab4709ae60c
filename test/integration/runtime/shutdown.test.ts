import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { type IChildWorker, spawnChildWorker } from "../../helpers/child-worker.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { newLedgerFile, readLedger } from "../../helpers/ledger-file.js";
import { jobCountsOf } from "../../helpers/partition-queues.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-shutdown" };
const shutdownTimeoutMs = 1_000;
/** Hand-back and closing connections, on a machine shared with other test runs. */
const marginMs = 4_000;
/** A private Redis for the test that kills it (ports 7100-7199 are this suite's). */
const privateRedisPort = 7_137;

function exitsWithin(worker: IChildWorker, ms: number): Promise<number | NodeJS.Signals | null> {
  return Promise.race([
    worker.exited,
    new Promise<never>((_resolve, reject) =>
      setTimeout(() => reject(new Error(`the worker did not exit within ${ms} ms:\n${worker.output()}`)), ms),
    ),
  ]);
}

/** Issue 10 defect 6: SIGTERM hands active jobs back after TOLLGATE_SHUTDOWN_TIMEOUT_MS, and the worker exits. */
describe("worker shutdown", () => {
  let harness: IHarness;
  const children: IChildWorker[] = [];
  let redisServer: ChildProcess | undefined;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "shutdown");
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill("SIGKILL");
      await child.exited;
    }
    if (redisServer && redisServer.exitCode === null && redisServer.signalCode === null) {
      redisServer.kill("SIGKILL");
    }
  });
  afterAll(() => harness.close());

  function startChild(ledgerFile: string, env: Record<string, string> = {}): IChildWorker {
    const worker = spawnChildWorker({
      prefix: harness.prefix,
      modelUrl: harness.model.url,
      ledgerFile,
      env: { SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs), ...env },
    });
    children.push(worker);
    return worker;
  }

  it("SIGTERM during a long tool: the worker exits within the timeout, another worker finishes the run", async () => {
    const ledgerFile = newLedgerFile();
    const first = startChild(ledgerFile);
    await first.ready;
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "long_running", input: { ms: 3_000 } }] }, { text: "handed over" }),
      userContext: user,
    });
    await waitUntil(() =>
      readLedger(ledgerFile).some((entry) => entry.tool === "long_running" && entry.event === "start"),
    );
    first.child.kill("SIGTERM");
    expect(await exitsWithin(first, shutdownTimeoutMs + marginMs)).toBe(0);
    // Handed back, not left active: the tool job waits for the next worker.
    expect((await jobCountsOf(harness.client, "tools", "active")).active).toBe(0);

    const second = startChild(ledgerFile);
    await second.ready;
    const response = await harness.client.wait(runId, { timeoutMs: 30_000 });
    expect(response.status).toBe("completed");
    expect(response.text).toBe("handed over");
    expect(response.toolResults[0]).toMatchObject({ outcome: "ok" });
    const starts = readLedger(ledgerFile).filter(
      (entry) => entry.tool === "long_running" && entry.event === "start",
    );
    expect(starts).toHaveLength(2);
  });

  it.each([
    ["killed (connections refused)", "SIGKILL"],
    ["stopped (connections hang)", "SIGSTOP"],
  ] as const)("SIGTERM while its Redis is %s: an idle worker still exits", async (_name, redisSignal) => {
    redisServer = spawn(
      "redis-server",
      ["--port", String(privateRedisPort), "--save", "", "--appendonly", "no"],
      { stdio: "ignore" },
    );
    const worker = startChild(newLedgerFile(), { REDIS_URL: `redis://127.0.0.1:${privateRedisPort}` });
    await worker.ready;
    if (redisSignal === "SIGKILL") {
      const redisGone = new Promise((resolve) => redisServer!.once("exit", resolve));
      redisServer.kill("SIGKILL");
      await redisGone;
    } else {
      redisServer.kill("SIGSTOP");
    }
    worker.child.kill("SIGTERM");
    const code = await exitsWithin(worker, shutdownTimeoutMs + marginMs);
    expect(code).not.toBeNull();
  });
});
