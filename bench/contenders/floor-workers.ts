import { type Job, Queue, WaitingChildrenError, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { benchOpenAi } from "../lib/model-transport.js";
import { benchModelName, echoToolDefinition } from "../lib/scripts.js";

export interface IFloorRunData {
  messages: ChatCompletionMessageParam[];
  waitingForTools: boolean;
}

export interface IFloorOptions {
  redisUrl: string;
  modelUrl: string;
  prefix: string;
  concurrency: number;
}

/**
 * The floor's workers: a parent job makes the first model call, adds one child job per tool call and
 * waits for them (BullMQ's step-job pattern), then makes the second model call. In the bench process or
 * in a worker process of their own (bench/floor-worker-process.ts), as Tollgate's worker runs both ways.
 */
export async function startFloorWorkers(options: IFloorOptions): Promise<{ close(): Promise<void> }> {
  const openai = benchOpenAi(options.modelUrl);
  const connection = () => new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const base = { prefix: options.prefix };
  const tools = new Queue("tools", { ...base, connection: connection() });
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
  await Promise.all([runWorker.waitUntilReady(), toolWorker.waitUntilReady()]);
  return {
    async close() {
      await Promise.all([runWorker.close(), toolWorker.close()]);
      await tools.close();
    },
  };
}
