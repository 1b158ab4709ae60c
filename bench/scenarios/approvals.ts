import { clientInternals } from "../../src/producer/client-internals.js";
import type { GatewayClient } from "../../src/producer/index.js";
import { toolStarts } from "../bench-gateway.js";
import { bullmqPromote } from "../contenders/bullmq-promote.js";
import { floorRecordsApproval } from "../contenders/floor-records-approval.js";
import { alternate } from "../lib/alternate.js";
import type { IBenchEnvironment } from "../lib/environment.js";
import { markdownTable } from "../lib/markdown-table.js";
import { type ILatencySummary, summarize } from "../lib/percentiles.js";
import { type IScenarioResult, sized } from "../lib/scenario.js";

/**
 * Scenario 5, latency: approve → tool start. Tollgate: a run parks on `approve_me`; the clock starts when
 * `approvals.approve` is called and stops when the tool's execute begins (in-process worker). Floor: a
 * delayed BullMQ job promoted → its processor starts. The approval floor with records: the same, with the
 * records an approval keeps decided in the promotion's transaction (floor-records-approval.ts).
 * Alternating turn by turn; parking is not timed.
 */
export async function approvals(environment: IBenchEnvironment): Promise<IScenarioResult> {
  const tollgate = environment.contenders.tollgateInProcess;
  const floor = await bullmqPromote({ redisUrl: environment.redis.url, prefix: "floor-approvals" });
  environment.onClose(() => floor.close());
  const records = await floorRecordsApproval({
    redisUrl: environment.redis.url,
    prefix: "floor-records-approvals",
  });
  environment.onClose(() => records.close());
  const tollgateContender = {
    name: "Tollgate: approvals.approve → tool start (in-process worker)",
    measure: (turn: number) => approveToToolStart(tollgate.client, turn),
  };
  const floorContender = { name: floor.name, measure: (turn: number) => floor.promoteToStart(String(turn)) };
  const recordsContender = {
    name: records.name,
    measure: (turn: number) => records.approveToStart(String(turn)),
  };
  const turns = sized(environment, 200, 10);
  const samples = await alternate(
    [floorContender, recordsContender, tollgateContender],
    { warmupTurns: sized(environment, 10, 2), turns },
    (contender, turn) => contender.measure(turn),
  );
  const summaries: Record<string, ILatencySummary> = {};
  for (const [name, values] of samples) summaries[name] = summarize(values);
  return {
    title: "Approvals: approve → tool start",
    markdown: [
      `${turns} approvals per contender after a warm-up, alternating. Milliseconds.`,
      "",
      markdownTable(
        ["contender", "p50", "p99", "mean"],
        Object.entries(summaries).map(([name, summary]) => [name, summary.p50, summary.p99, summary.mean]),
      ),
    ].join("\n"),
    data: {
      turns,
      summaries,
      floorName: floor.name,
      floorRecordsName: records.name,
      tollgateName: tollgateContender.name,
    },
  };
}

async function approveToToolStart(client: GatewayClient, turn: number): Promise<number> {
  const amount = 1_000_000 + turn;
  const { runId } = await client.run({
    input: JSON.stringify({
      script: [{ calls: [{ name: "approve_me", input: { amount } }] }, { text: "done" }],
    }),
    userContext: { userId: "bench" },
  });
  const approvalId = await pendingApprovalOf(client, runId);
  await parkedRunJob(client, runId);
  const toolStarted = new Promise<number>((resolve) => {
    const listener = (startedAmount: number, startedAt: number) => {
      if (startedAmount !== amount) return;
      toolStarts.off("approve_me", listener);
      resolve(startedAt);
    };
    toolStarts.on("approve_me", listener);
  });
  const approvedAt = performance.now();
  await client.approvals.approve(approvalId, { approver: "bench-reviewer" }); // never the run's own user
  const startedAt = await toolStarted;
  const response = await client.wait(runId);
  if (response.status !== "completed") throw new Error(`approved run ended ${response.status}`);
  return startedAt - approvedAt;
}

/** Waits (outside the clock) until the run's job has finished its activation and waits for its child. */
async function parkedRunJob(client: GatewayClient, runId: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await clientInternals(client).runtime.queues.runs.getJobState(runId)) !== "waiting-children") {
    if (Date.now() > deadline) throw new Error(`run ${runId} did not reach waiting-children within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Polls (outside the clock) until the run's call is parked; a deadline turns a hang into an error. */
async function pendingApprovalOf(client: GatewayClient, runId: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [approval] = await client.approvals.list({ runId });
    if (approval) return approval.approvalId;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not park on its approval within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
