import { type Job, Queue, QueueEvents, WaitingChildrenError, Worker } from "bullmq";
import { Redis } from "ioredis";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { benchModelName, echoToolDefinition, toolCallScript } from "../lib/scripts.js";
import type { IContender } from "./contender.js";

interface IFloorRunData {
  messages: ChatCompletionMessageParam[];
  waitingForTools: boolean;
}

/**
 * The floor: the same run designed directly on BullMQ, with no Tollgate code. A parent job makes the
 * first model call, adds one child job per tool call and waits for them (BullMQ's step-job pattern),
 * then makes the second model call; the caller waits with QueueEvents. What any queue-based design
 * pays at least.
 */
export async function bullmqFloor(options: {
  redisUrl: string;
  modelUrl: string;
  prefix: string;
  concurrency: number;
}): Promise<IContender> {
  const openai = new OpenAI({ baseURL: options.modelUrl, apiKey: "bench", maxRetries: 0 });
  const connection = () => new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const base = { prefix: options.prefix };
  const runs = new Queue<IFloorRunData>("runs", { ...base, connection: connection() });
  const tools = new Queue("tools", { ...base, connection: connection() });
  const events = new QueueEvents("runs", { ...base, connection: connection() });
  // job.waitUntilFinished adds a listener per waiting caller: 50 in flight is not a leak.
  runs.setMaxListeners(0);
  const model = (messages: ChatCompletionMessageParam[]) =>
    openai.chat.completions.create({ model: benchModelName, messages, tools: [echoToolDefinition] });
  const runWorker = new Worker<IFloorRunData>(
    "runs",
    async (job: Job<IFloorRunData>, token?: string) => {
      if (!job.data.waitingForTools) {
        const reply = (await model(job.data.messages)).choices[0]!.message;
        const toolCalls = (reply.tool_calls ?? []).filter((call) => call.type === "function");
        await tools.addBulk(
          toolCalls.map((call) => ({
            name: call.function.name,
            data: { callId: call.id, arguments: call.function.arguments },
            opts: {
              jobId: `${job.id}-${call.id}`,
              parent: { id: job.id!, queue: job.queueQualifiedName },
              ignoreDependencyOnFailure: true,
            },
          })),
        );
        await job.updateData({ messages: [...job.data.messages, reply], waitingForTools: true });
        if (await job.moveToWaitingChildren(token!)) throw new WaitingChildrenError();
      }
      const results = Object.values(await job.getChildrenValues()) as Array<{
        callId: string;
        value: string;
      }>;
      const messages: ChatCompletionMessageParam[] = [
        ...job.data.messages,
        ...results.map((result) => ({
          role: "tool" as const,
          tool_call_id: result.callId,
          content: JSON.stringify({ value: result.value }),
        })),
      ];
      return (await model(messages)).choices[0]!.message.content;
    },
    { ...base, connection: connection(), concurrency: options.concurrency },
  );
  const toolWorker = new Worker(
    "tools",
    async (job: Job<{ callId: string; arguments: string }>) => ({
      callId: job.data.callId,
      value: (JSON.parse(job.data.arguments) as { value: string }).value,
    }),
    { ...base, connection: connection(), concurrency: options.concurrency },
  );
  await Promise.all([runWorker.waitUntilReady(), toolWorker.waitUntilReady(), events.waitUntilReady()]);
  return {
    name: "raw BullMQ run (floor)",
    childPids: [],
    async run(tag, calls = 1) {
      const job = await runs.add("run", {
        messages: [{ role: "user", content: toolCallScript(tag, calls) }],
        waitingForTools: false,
      });
      const answer = await job.waitUntilFinished(events);
      if (answer !== "done") throw new Error(`raw BullMQ run: unexpected answer ${JSON.stringify(answer)}`);
    },
    async close() {
      await Promise.all([runWorker.close(), toolWorker.close()]);
      await Promise.all([runs.close(), tools.close(), events.close()]);
    },
  };
}
