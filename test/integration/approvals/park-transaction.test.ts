import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { testRedisOptions } from "../../helpers/redis-url.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-park-transaction" };

/** A command as MONITOR saw it: who sent it (an address, or "lua" inside a script) and its words. */
interface IMonitored {
  source: string;
  args: string[];
}

/**
 * A parked call's approval record and its delayed job are written in one MULTI/EXEC (issue 26): the
 * last CI saw a pending approval listed while its job did not exist yet (record first, job second, two
 * round trips), so a reader, or a decision, could meet the one without the other. Watched with MONITOR
 * on the real Redis, as the worker parks a real run.
 */
describe("parking a call, one transaction", () => {
  let harness: IHarness;
  let monitor: ChildProcess;
  const seen: IMonitored[] = [];
  beforeAll(async () => {
    harness = await createHarness(testGateway, "park-transaction");
    await harness.startWorker();
    monitor = spawn("redis-cli", ["-u", testRedisOptions.redisUrl, "monitor"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    const lines = createInterface({ input: monitor.stdout! });
    lines.on("line", (line) => {
      const command = parseMonitorLine(line);
      // Only what the test reads: the shared Redis may be busy with other files' tests.
      if (
        command &&
        (command.source === "lua" || isTransactionEdge(command.args) || line.includes(harness.prefix))
      )
        seen.push(command);
    });
    await waitUntil(() => seen.length > 0 || undefined, { message: "MONITOR sees commands" });
  });
  afterAll(async () => {
    monitor.kill();
    await harness.close();
  });

  it("the record's creation and the approval job's add go in the same EXEC", async () => {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "needs_approval", input: { amount: 5 } }] }, { text: "done" }),
      userContext: user,
    });
    const [approval] = await waitUntil(async () => {
      const pending = await harness.client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    const runtime = clientInternals(harness.client).runtimeOf(runId);
    // Listed means both exist.
    expect(await runtime.queues.approvals.getJob(approval!.approvalId)).toBeDefined();

    const recordKey = runtime.keys.approval(approval!.approvalId);
    const jobKey = runtime.queues.approvals.toKey(approval!.approvalId);
    const create = seen.findIndex((command) => command.source === "lua" && command.args[1] === recordKey);
    const add = seen.findIndex((command) => command.source === "lua" && command.args.includes(jobKey));
    expect(create).toBeGreaterThanOrEqual(0);
    expect(add).toBeGreaterThan(create);
    // The script calls run inside EXEC, so between them no EXEC has ended and no other client ran a
    // command: both come after one client's MULTI and before its EXEC.
    const between = seen.slice(create, add + 1);
    expect(between.filter((command) => command.source !== "lua" && !isScriptCall(command))).toEqual([]);
    const sender = seen.slice(0, create).findLast((command) => command.source !== "lua");
    expect(sender?.args[0]?.toLowerCase()).toBe("evalsha");
    const opened = seen
      .slice(0, create)
      .findLast((command) => command.source === sender!.source && isTransactionEdge(command.args));
    expect(opened?.args[0]?.toLowerCase()).toBe("multi");
    const senders = new Set(between.filter(isScriptCall).map((command) => command.source));
    expect([...senders]).toEqual([sender!.source]);

    await harness.client.cancel(runId);
    await harness.client.wait(runId);
  });
});

function isTransactionEdge(args: string[]): boolean {
  const name = args[0]?.toLowerCase();
  return name === "multi" || name === "exec";
}

function isScriptCall(command: IMonitored): boolean {
  return command.source !== "lua" && command.args[0]?.toLowerCase() === "evalsha";
}

/** `1796229866.914996 [0 127.0.0.1:55840] "EVALSHA" "…" …`, or `[0 lua]` inside a script. */
function parseMonitorLine(line: string): IMonitored | undefined {
  const header = /^\d+\.\d+ \[\d+ ([^\]]+)\] /.exec(line);
  if (!header) return undefined;
  const args = [...line.slice(header[0].length).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!);
  return { source: header[1]!, args };
}
