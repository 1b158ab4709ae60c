import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { testClusterNodes, testRedisUrl } from "../../helpers/redis-url.js";
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
/** redis-cli's arguments for each node: the cluster's masters and replicas given, or the one server. */
const nodes: string[][] = testClusterNodes
  ? testClusterNodes.map((node) => ["-h", node.split(":")[0]!, "-p", node.split(":")[1]!])
  : [["-u", testRedisUrl]];

describe("parking a call, one transaction", () => {
  let harness: IHarness;
  const monitors: ChildProcess[] = [];
  /** What each node's MONITOR saw, in its order: on a cluster, the run's keys live on one of them. */
  const seenByNode: IMonitored[][] = [];
  beforeAll(async () => {
    harness = await createHarness(testGateway, "park-transaction");
    await harness.startWorker();
    for (const node of nodes) {
      const monitor = spawn("redis-cli", [...node, "monitor"], {
        stdio: ["ignore", "pipe", "ignore"],
      });
      monitors.push(monitor);
      const seen: IMonitored[] = [];
      seenByNode.push(seen);
      createInterface({ input: monitor.stdout! }).on("line", (line) => {
        const command = parseMonitorLine(line);
        // Only what the test reads: the shared Redis may be busy with other files' tests.
        if (
          command &&
          (command.source === "lua" ||
            isTransactionEdge(command.args) ||
            line.includes(harness.prefix.replace(/[{}]/g, "")))
        )
          seen.push(command);
      });
    }
    // MONITOR starts in its own time: an ECHO under the prefix to each node shows when each one is on.
    await waitUntil(
      () => {
        nodes.forEach((node, index) => {
          if (seenByNode[index]!.length > 0) return;
          execFileSync("redis-cli", [...node, "ECHO", `${harness.prefix}:monitor-on`]);
        });
        return seenByNode.every((seen) => seen.length > 0) || undefined;
      },
      { message: "MONITOR sees commands on every node" },
    );
  });
  afterAll(async () => {
    for (const monitor of monitors) monitor.kill();
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
    const isCreate = (command: IMonitored) => command.source === "lua" && command.args[1] === recordKey;
    const isAdd = (command: IMonitored) => command.source === "lua" && command.args.includes(jobKey);
    // MONITOR's lines come through a pipe, behind the answers the test read: wait until both are in.
    const seen = await waitUntil(
      () => seenByNode.find((lines) => lines.some(isCreate) && lines.some(isAdd)),
      { message: "MONITOR shows the approval's creation and its job's add" },
    );
    const create = seen.findIndex(isCreate);
    const add = seen.findIndex(isAdd);
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
