import { Job } from "bullmq";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { CancelBus } from "../../../src/runtime/cancel-bus.js";
import { createRuntime, type ITollgateRuntime } from "../../../src/runtime/runtime.js";
import { createToolProcessor } from "../../../src/workers/tool-processor.js";
import type { IWorkerContext } from "../../../src/workers/worker-context.js";
import { testRedisOptions } from "../../helpers/redis-url.js";
import { deletePrefix, uniquePrefix } from "../../helpers/test-prefix.js";

const started: string[] = [];
const gateway = defineGateway({
  name: "tool-start",
  tools: [
    defineTool({
      name: "pay",
      description: "Records that it started.",
      inputSchema: z.object({ amount: z.number() }),
      execute: async ({ input, callId }) => {
        started.push(callId);
        return { paid: input.amount };
      },
    }),
  ],
});

/**
 * Issue 26 (approve → tool start): a tool job awaits nothing before its tool starts when nothing has to be
 * read (no pinned MCP list, a schema that parses at once). BullMQ's worker, with a concurrency above 1, goes
 * on to fetch its next job at the processor's first await; that fetch's round trip came before the tool.
 */
describe("a tool job's start", () => {
  let runtime: ITollgateRuntime;
  let cancelBus: CancelBus;
  const prefix = uniquePrefix("tool-start");
  beforeAll(async () => {
    runtime = createRuntime({ gateway, options: { ...testRedisOptions, prefix }, role: "worker" });
    await runtime.ready();
    cancelBus = await CancelBus.start(runtime);
  });
  afterAll(async () => {
    await cancelBus.close();
    await runtime.close();
    await deletePrefix(prefix);
  });

  it("calls the tool within the processor's call, before it awaits anything", async () => {
    // What the tool processor reads of its context; the run's model and streaming parts are not.
    const context = { runtime, cancelBus, logger: pino({ level: "silent" }) } as unknown as IWorkerContext;
    const processor = createToolProcessor(context);
    const data = {
      schemaVersion: 2,
      runId: "run-tool-start",
      threadId: "thread-tool-start",
      callId: "run-tool-start-s1-c0",
      toolName: "pay",
      rawInput: { amount: 3 },
      userContext: { userId: "u1" },
      scheduledAt: Date.now(),
    };
    const job = new Job(runtime.queues.tools, "pay", data, {}, data.callId);
    const result = processor(job, "token");
    expect(started).toEqual([data.callId]);
    expect((await result).execution).toMatchObject({ outcome: "ok", output: { paid: 3 } });
  });
});
