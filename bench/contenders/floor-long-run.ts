import { randomUUID } from "node:crypto";
import { type Job, Queue, QueueEvents, WaitingChildrenError, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { benchOpenAi } from "../lib/model-transport.js";
import { benchModelName, echoToolDefinition, toolOutputValue } from "../lib/scripts.js";
import type { IFloorOptions } from "./floor-workers.js";
import { historyFromFirstUser, type ILongRunContender, threadHistoryMessages } from "./long-run-contender.js";

interface IRunData {
  input: string;
  threadId: string;
}

interface IToolData {
  step: number;
  index: number;
  callId: string;
  arguments: string;
}

/** A tool job's return value: its call and its result, what a later activation rebuilds the step from. */
interface IToolResult extends IToolData {
  name: string;
  value: string;
}

/**
 * The floor of the long-run scenario: the floor's run (bullmq-floor.ts, floor-workers.ts) looped over
 * as many steps as the model asks for, on a thread, with nothing written twice. A step's calls and
 * results are its BullMQ child jobs and their return values, never copied into the run job's data (the
 * one-step floor's `updateData` would rewrite the whole conversation at every step); each activation
 * rebuilds the conversation from them. A thread's history is a Redis list each run appends its own
 * messages to once, as it ends (trimmed to Tollgate's default of 200), and each activation reads. So what
 * a step or a run sends Redis does not grow with the history; what does is what any design pays: the
 * model request carries the whole history, and a stateless activation reads it back. The same queue
 * layout as the floor, on a prefix of its own; the caller waits with QueueEvents.
 */
export async function floorLongRun(options: IFloorOptions): Promise<ILongRunContender> {
  const openai = benchOpenAi(options.modelUrl);
  const connection = () => new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const base = { prefix: options.prefix };
  const threads = connection();
  const threadKey = (threadId: string) => `${options.prefix}:thread:${threadId}:messages`;
  const runs = new Queue<IRunData>("runs", { ...base, connection: connection() });
  const events = new QueueEvents("runs", { ...base, connection: connection() });
  const tools = new Queue<IToolData>("tools", { ...base, connection: connection() });

  const activation = async (job: Job<IRunData>, token: string): Promise<string | null> => {
    const [stored, children] = await Promise.all([
      threads.lrange(threadKey(job.data.threadId), -threadHistoryMessages, -1),
      job.getChildrenValues<IToolResult>(),
    ]);
    const history = historyFromFirstUser(
      stored.map((json) => JSON.parse(json) as ChatCompletionMessageParam),
    );
    const own: ChatCompletionMessageParam[] = [
      { role: "user", content: job.data.input },
      ...stepMessages(Object.values(children)),
    ];
    const completion = await openai.chat.completions.create({
      model: benchModelName,
      messages: [...history, ...own],
      tools: [echoToolDefinition],
    });
    const reply = completion.choices[0]!.message;
    const toolCalls = (reply.tool_calls ?? []).filter((call) => call.type === "function");
    if (toolCalls.length === 0) {
      const key = threadKey(job.data.threadId);
      const messages = [...own, { role: "assistant" as const, content: reply.content }];
      await threads
        .multi()
        .rpush(key, ...messages.map((message) => JSON.stringify(message)))
        .ltrim(key, -threadHistoryMessages, -1)
        .exec();
      return reply.content;
    }
    const step = new Set(Object.values(children).map((child) => child.step)).size;
    await tools.addBulk(
      toolCalls.map((call, index) => ({
        name: call.function.name,
        data: { step, index, callId: call.id, arguments: call.function.arguments },
        opts: {
          jobId: `${job.id}-s${step}-c${index}`,
          parent: { id: job.id!, queue: job.queueQualifiedName },
          ignoreDependencyOnFailure: true,
        },
      })),
    );
    if (await job.moveToWaitingChildren(token)) throw new WaitingChildrenError();
    return activation(job, token);
  };
  const runWorker = new Worker<IRunData>("runs", (job, token) => activation(job, token!), {
    ...base,
    connection: connection(),
    concurrency: options.concurrency,
  });
  const toolWorker = new Worker(
    "tools",
    async (job: Job<IToolData>): Promise<IToolResult> => ({
      ...job.data,
      name: job.name,
      value: toolOutputValue(job.data.arguments),
    }),
    { ...base, connection: connection(), concurrency: options.concurrency },
  );
  await Promise.all([runWorker.waitUntilReady(), toolWorker.waitUntilReady(), events.waitUntilReady()]);
  return {
    name: "raw BullMQ run (floor), each step kept once",
    async run({ input, threadId = `thread-${randomUUID()}` }) {
      const job = await runs.add("run", { input, threadId });
      const answer = await job.waitUntilFinished(events);
      if (answer !== "done") throw new Error(`floor long run: unexpected answer ${JSON.stringify(answer)}`);
      return threadId;
    },
    async close() {
      await Promise.all([runWorker.close(), toolWorker.close()]);
      await Promise.all([runs.close(), events.close(), tools.close()]);
      threads.disconnect();
    },
  };
}

/** The steps so far, in order: each model reply's calls, then their results, as the model reads them. */
function stepMessages(results: IToolResult[]): ChatCompletionMessageParam[] {
  const bySteps = new Map<number, IToolResult[]>();
  for (const result of [...results].sort((a, b) => a.step - b.step || a.index - b.index)) {
    bySteps.set(result.step, [...(bySteps.get(result.step) ?? []), result]);
  }
  return [...bySteps.values()].flatMap((calls): ChatCompletionMessageParam[] => [
    {
      role: "assistant",
      content: null,
      tool_calls: calls.map((call) => ({
        id: call.callId,
        type: "function" as const,
        function: { name: call.name, arguments: call.arguments },
      })),
    },
    ...calls.map((call) => ({
      role: "tool" as const,
      tool_call_id: call.callId,
      content: JSON.stringify({ value: call.value }),
    })),
  ]);
}
