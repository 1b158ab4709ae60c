import { benchSetup } from "./bench-setup.js";

/** Redis memory of parked approvals: 1,000 runs parked, INFO memory before/after, and MEMORY USAGE of one. */
export async function approvalMemory(): Promise<string> {
  const setup = await benchSetup();
  try {
    await setup.startWorker(50);
    const parked = 1_000;
    const before = await usedMemory(setup.redis);
    const ids: string[] = [];
    for (let index = 0; index < parked; index++) {
      const { runId } = await setup.client.run({
        input: JSON.stringify({
          script: [{ calls: [{ name: "approve_me", input: { amount: index } }] }, { text: "ok" }],
        }),
        userContext: { userId: `user-${index % 10}` },
      });
      ids.push(runId);
    }
    for (;;) {
      if ((await setup.client.runtime.approvals.countPending()) >= parked) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const after = await usedMemory(setup.redis);
    const [one] = await setup.client.approvals.list({ runId: ids[0]! });
    const keys = setup.client.runtime.keys;
    const approvalRecord = await setup.redis.memory("USAGE", keys.approval(one!.approvalId), "SAMPLES", "0");
    const approvalJob = await setup.redis.memory(
      "USAGE",
      `${setup.prefix}:approvals:${one!.approvalId}`,
      "SAMPLES",
      "0",
    );
    const runState = await setup.redis.memory("USAGE", keys.run(ids[0]!), "SAMPLES", "0");
    const runJob = await setup.redis.memory("USAGE", `${setup.prefix}:runs:${ids[0]}`, "SAMPLES", "0");
    const runEvents = await setup.redis.memory("USAGE", keys.runEvents(ids[0]!), "SAMPLES", "0");
    return [
      `${parked} runs, each parked on one approval (a small input), one worker.`,
      "",
      "| measured | bytes |",
      "|---|---|",
      `| INFO used_memory delta per parked run (everything: run state, events, jobs, indexes) | ${Math.round((after - before) / parked)} |`,
      `| MEMORY USAGE of the approval record (hash) | ${approvalRecord} |`,
      `| MEMORY USAGE of the approval's BullMQ job (hash) | ${approvalJob} |`,
      `| approval alone (record + job), without the sorted-set entries | ${Number(approvalRecord) + Number(approvalJob)} |`,
      `| the parked run's state (hash) | ${runState} |`,
      `| the parked run's BullMQ job (hash) | ${runJob} |`,
      `| the parked run's event stream | ${runEvents} |`,
    ].join("\n");
  } finally {
    await setup.close();
  }
}

async function usedMemory(redis: import("ioredis").Redis): Promise<number> {
  const info = await redis.info("memory");
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}
