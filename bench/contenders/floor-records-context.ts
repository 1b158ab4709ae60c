import type { Queue, RedisClient } from "bullmq";
import type { ChainableCommander, Redis } from "ioredis";
import type OpenAI from "openai";
import type { IRecordCommands, TRecordKeys } from "./floor-records-store.js";

/** The run job's payload: the state as created, so that the first activation reads nothing. */
export interface IFloorRecordsRunData {
  runId: string;
  threadId: string;
  stateJson: string;
}

/** A tool job's payload and its return value (what the resumed activation reads from BullMQ). */
export interface IFloorRecordsToolData {
  runId: string;
  toolCallId: string;
  arguments: string;
}
export interface IFloorRecordsToolResult {
  toolCallId: string;
  callId: string;
  value: string;
  durationMs: number;
}

/** What an activation needs; one per worker. */
export interface IRunContext {
  openai: OpenAI;
  /** The workers' connection for records, with the scripts defined. */
  records: Redis & IRecordCommands;
  /** BullMQ's adapter over the tool queue's connection: its MULTIs take `Job#addJob`, as FlowProducer's do. */
  transactions: RedisClient;
  tools: Queue<IFloorRecordsToolData>;
  keys: TRecordKeys;
  streaming: boolean;
}

/** A MULTI or pipeline with the records' scripts, as ioredis copies a connection's scripts into it. */
export type TRecordBatch = ChainableCommander & {
  saveState(...keysThenArguments: Array<string | number>): TRecordBatch;
  finishRun(...keysThenArguments: Array<string | number>): TRecordBatch;
};
