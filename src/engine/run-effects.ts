import type {
  IThreadRelease,
  IToolResultPart,
  TApprovalRequest,
  TRunEventInput,
  TRunState,
} from "../contracts/index.js";

export type { IThreadRelease };

/** A tool call to run as a child job of the run. */
export interface IToolJobSpec {
  callId: string;
  toolName: string;
  /** What `execute` receives once its schema parsed it: the model's arguments or the human's edit. */
  rawInput: unknown;
  /** The approval that let the call run: its record gets the call's outcome when the tool job ends. */
  approvalId?: string;
}

/** What a tool job needs of its run: enough to build the run's registry without reading the run. */
export interface IToolJobRun {
  runId: string;
  threadId: string;
  userContext: TRunState["request"]["userContext"];
  tools?: string[] | undefined;
  additionalTools: string[];
  /** The run's pinned MCP tool list, when it has one. */
  toolListHash?: string | undefined;
}

/**
 * A call to park for a human: the approval record to write (every field, its expiry included, decided by
 * the engine), the `tool-call-parked` event written with it, and how long its delayed job waits.
 */
export interface IParkSpec {
  record: TApprovalRequest;
  announce: Extract<TRunEventInput, { type: "tool-call-parked" }>;
  delayMs: number;
}

/**
 * What the run worker must do to the world after a transition, in this order. Every effect that creates a
 * resource announces it itself once the resource exists (the tool jobs' `tool-call-dispatched` after they
 * were added; `tool-call-parked` in the same atomic step as its approval record).
 */
export type TRunEffect =
  | { type: "add-tool-jobs"; calls: IToolJobSpec[]; announce: TRunEventInput[] }
  | { type: "park-calls"; calls: IParkSpec[] }
  /** Calls that settled without a child job, or whose child reported: counted in the metrics. */
  | { type: "calls-settled"; results: IToolResultPart[] }
  /** The run is over: its final state is saved, it leaves its thread and the next run of it is woken. */
  | { type: "finish"; release: IThreadRelease };

/** The fixed order in which a transition's effects are carried out: create, then announce, then finish. */
export const effectOrder: Record<TRunEffect["type"], number> = {
  "add-tool-jobs": 0,
  "park-calls": 1,
  "calls-settled": 2,
  finish: 3,
};

/** Every engine transition's answer: the next state, what to do, and what to record with the state. */
export interface ITransition {
  state: TRunState;
  effects: TRunEffect[];
  /** Events saved in the same atomic step as `state`. */
  events: TRunEventInput[];
}
