import type { TRuntimeOptionsInput } from "../config/runtime-options.js";
import { runtimeWithTargetFromEnv } from "../config/runtime-target-from-env.js";
import {
  defaultTenant,
  type IGatewayResponse,
  type IUserContext,
  runProgressOf,
  type TClientAskInput,
  type TClientRunInput,
  type TOutputOf,
  type TOutputSchemaInput,
  type TRunProgress,
  type TScheduleView,
} from "../contracts/index.js";
import { isTerminal, responseOf, type TRunState } from "../engine/index.js";
import { assertKnownKeys, TollgateError } from "../errors/index.js";
import type { IGateway } from "../gateway/index.js";
import { createTracing, type ITracingOptions } from "../observability/tracing/index.js";
import { deleteThread, type IDeletedThread } from "../runtime/delete-thread.js";
import { EventFollowers } from "../runtime/event-followers.js";
import { FinishedRuns } from "../runtime/finished-runs.js";
import { createPartitionSet, type IPartitionSet } from "../runtime/partition-set.js";
import { requestCancel, type TCancelReason } from "../runtime/request-cancel.js";
import type { IRunEndingObserver } from "../runtime/run-ending.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import {
  connectionUsable,
  type IApprovalPage,
  type IApprovalQuery,
  type IRunEvent,
  type IRunQuery,
  type IUsageCount,
  usageDayOf,
} from "../store/index.js";
import { type IApprovalEventsOptions, openApprovalEvents } from "./approval-event-reader.js";
import {
  approverAccess,
  decisionAccessOf,
  type IApproverIdentity,
  type IDecisionAccess,
  withQuorumProgress,
} from "./approver-access.js";
import { attachClientInternals } from "./client-internals.js";
import type { IApproval, TStoredApprovalEvent } from "./client-views.js";
import { approve, type IApproveInput, type IRejectInput, reject } from "./decide-approval.js";
import { enqueueRun, type IEnqueuedRun } from "./enqueue-run.js";
import { forkRun, type IForkFrom, type IForkResult } from "./fork-run.js";
import { inInvokeAgentSpan, recordEnqueuedRun } from "./invoke-agent-span.js";
import { pageApprovals } from "./list-approvals.js";
import { type IRunPage, pageRuns } from "./list-runs.js";
import { type IToolListing, listTools } from "./list-tools.js";
import { withJsonOutputSchema } from "./output-of-request.js";
import { type IRerunChanges, type IRerunResult, rerunRun } from "./rerun-run.js";
import { type IResumeChanges, type IResumeResult, resumeRun } from "./resume-run.js";
import { type IRunEventsOptions, openRunEvents } from "./run-event-reader.js";
import { partitionForRun } from "./run-partition.js";
import { type IRunTranscript, transcriptOf } from "./run-transcript.js";
import type { TScheduleInput } from "./schedule-input-schema.js";
import {
  createSchedule,
  deleteSchedule,
  getSchedule,
  type ISchedulePage,
  type IScheduleQuery,
  listSchedules,
  pauseSchedule,
  resumeSchedule,
} from "./schedules.js";
import { waitForRun } from "./wait-for-run.js";

/** How long the key that `checkReady` writes lives: long enough to see, short enough to never pile up. */
const readinessProbeTtlMs = 10_000;

export interface IGatewayClientOptions<TToolName extends string = string> {
  gateway: IGateway<TToolName>;
  /**
   * Redis URL, prefix and the other runtime settings (the same as the workers'). Where the Redis target is
   * left out, it is read from `env` as the CLI reads it (REDIS_URL, TOLLGATE_PREFIX, partitions, cluster
   * or Sentinel nodes: see docs/LIBRARY.md); what is given here wins.
   */
  runtime?: TRuntimeOptionsInput;
  /** The environment the Redis target left out of `runtime` is read from. @defaultValue process.env */
  env?: NodeJS.ProcessEnv;
  /** worker: ride out Redis outages (a script); client: fail fast (an HTTP API). @defaultValue "client" */
  connectionRole?: "client" | "worker";
  now?: () => number;
  /** Told of Redis connection errors (they repeat on every reconnect attempt). */
  onConnectionError?: (error: Error) => void;
  /**
   * Live runs followed (`events`, SSE streams) per Redis connection: followers share blocking
   * connections instead of holding one each. @defaultValue 100
   */
  eventFollowersPerConnection?: number;
  /**
   * OpenTelemetry: one trace per run, from here through the workers (see docs/TRACING.md). Off when
   * absent. `startTracingFromEnv` builds it from the standard OTEL_* variables.
   */
  tracing?: ITracingOptions;
}

/** Every key of IGatewayClientOptions (`satisfies` keeps the two the same set): anything else is a typo. */
const gatewayClientOptionKeys = Object.keys({
  gateway: true,
  runtime: true,
  env: true,
  connectionRole: true,
  now: true,
  onConnectionError: true,
  eventFollowersPerConnection: true,
  tracing: true,
} satisfies Record<keyof IGatewayClientOptions, true>);

/**
 * What `getRun` shows: where a run is, its parked approvals, and the response once it finished; `TToolName`
 * (the client's gateway's tool names) types the names in them.
 */
export interface IRunView<TToolName extends string = string> {
  runId: string;
  threadId: string;
  /** `waiting` while one of the run's approvals is pending (a call waits for a person). */
  status: TRunState["status"];
  phase: TRunState["phase"];
  /** Model calls made so far. */
  steps: number;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  metadata?: Record<string, unknown>;
  /** The run's tenant; absent: the default tenant. */
  tenant?: string;
  /** Who created the run. */
  createdBy?: string;
  pendingApprovals: IApproval<TToolName>[];
  response?: IGatewayResponse<unknown, TToolName>;
  /** The run this one re-ran. */
  rerunOf?: string;
  /** The runs that re-ran this one, oldest first. */
  reruns?: string[];
  /** The user the run acts for. */
  userId: string;
  /** The user message the run was asked. */
  input: string;
  /** While the run is unfinished: its calls and model replies so far, for a timeline (then `response`). */
  progress?: TRunProgress;
  /** The run and call this one was forked from. */
  forkOf?: { runId: string; callId: string };
  /** The runs forked from this one, oldest first, with the call each started at. */
  forks?: Array<{ runId: string; callId: string }>;
  /** The failed, timed-out or cancelled run this one continues. */
  resumeOf?: string;
  /** The run that continues this one (`resume`). */
  resumedBy?: string;
  /** The schedule whose tick created the run, and the tick's time. */
  scheduleId?: string;
  scheduledAt?: number;
}

/**
 * A schedule to create: when it ticks and the run request each tick enqueues (what `run` takes, without an
 * idempotency key: each tick's run gets one derived from the tick).
 */
export type IScheduleCreateInput<TToolName extends string = string> = Omit<TScheduleInput, "request"> & {
  request: Omit<TClientRunInput<TToolName>, "idempotencyKey">;
};

/**
 * What a Node service uses: enqueue runs, wait for them, follow their events, cancel them, decide
 * approvals. Everything here is also what the HTTP API calls. `TToolName` is inferred from the gateway
 * (`new GatewayClient({ gateway })`), so `tools` and `additionalTools` naming no tool of it fail to
 * compile; a client built on an untyped `IGateway` accepts any string, checked at run time.
 * What comes back (responses, run views, approvals, events) names tools as `TToolName` too: the stores
 * keep plain strings, narrowed here (the casts below) because only the gateway's own tools are parked,
 * run or announced; a call to an unknown tool keeps the model's name (its `outcome` is `unknown_tool`).
 */
export class GatewayClient<TToolName extends string = string> {
  // The runtime is not part of the surface: these are ES private fields (absent from the type, from
  // Object.keys and from a cast), and the API, links and tests reach them through client-internals.ts.
  /** The first partition of the current layout (the only one with `partitions: 1`). */
  readonly #runtime: ITollgateRuntime;
  /** Every partition this client reaches, and where ids and threads go. */
  readonly #partitions: IPartitionSet;
  readonly #finishedRuns: FinishedRuns;
  /**
   * Where the runs this client ends itself (a cancelled run no job holds any more) are counted: nowhere
   * until an API on this client gives its metrics (clientPortOf(...).observeRunEndings).
   */
  readonly #runEndings: IRunEndingObserver = {};
  /** Followers per partition, created when a run of it is first followed. */
  private readonly followers = new Map<ITollgateRuntime, EventFollowers>();
  private readonly followersPerConnection: number | undefined;
  readonly approvals: {
    /** The first page of `query` (pending by default, up to `limit`, 1000 unless given). */
    list(query?: IApprovalQuery): Promise<IApproval<TToolName>[]>;
    /** One page of approvals, pending or decided, every filter exact; pass `nextCursor` for the next. */
    page(query?: IApprovalQuery): Promise<IApprovalPage & { approvals: IApproval<TToolName>[] }>;
    get(approvalId: string): Promise<IApproval<TToolName>>;
    approve(approvalId: string, input: IApproveInput): Promise<IApproval<TToolName>>;
    reject(approvalId: string, input: IRejectInput): Promise<IApproval<TToolName>>;
    /**
     * Whether the gateway's approver rules and the requester check let `approver` decide this approval
     * (as approve and reject check it; whether it is still pending is its `status`), so a screen offers
     * only the decisions the server would take. A refusal names the rule and says why.
     */
    mayDecide(approvalId: string, approver: IApproverIdentity): Promise<IDecisionAccess>;
    /**
     * Approval events (requested, decided, expired, cancelled, and the types other features add), as
     * they are appended, until `signal` aborts; followed on connections shared with the runs' followers.
     */
    events(options?: IApprovalEventsOptions): AsyncGenerator<TStoredApprovalEvent<TToolName>>;
    /** As `events`, but refuses a bad `afterId` at once (TG_BAD_REQUEST): the SSE route opens with it. */
    openEvents(options?: IApprovalEventsOptions): Promise<AsyncGenerator<TStoredApprovalEvent<TToolName>>>;
  };
  /**
   * Schedules: each tick of one enqueues one run of its request, on BullMQ's job schedulers (the
   * workers serving the runs queue fire them). The caller checks tenants, as for runs.
   */
  readonly schedules: {
    /**
     * Checks the timing and the run request (as `run` would: tools, model, output schema; 422 otherwise),
     * then stores the schedule and starts its ticks.
     */
    create(input: IScheduleCreateInput<TToolName>): Promise<TScheduleView>;
    /** One page of schedules, newest first (`tenant`: one tenant's); pass `nextCursor` for the next. */
    list(query?: IScheduleQuery): Promise<ISchedulePage>;
    /** TG_SCHEDULE_NOT_FOUND for an id this client does not know. */
    get(scheduleId: string): Promise<TScheduleView>;
    /** No tick starts a run while paused. */
    pause(scheduleId: string): Promise<TScheduleView>;
    resume(scheduleId: string): Promise<TScheduleView>;
    /** The schedule and its ticks go; its runs stay. */
    delete(scheduleId: string): Promise<{ scheduleId: string; deleted: true }>;
  };

  constructor(options: IGatewayClientOptions<TToolName>) {
    assertKnownKeys(options, gatewayClientOptionKeys, "TG_INVALID_CONFIG", "Invalid GatewayClient options");
    this.#partitions = createPartitionSet({
      gateway: options.gateway,
      options: runtimeWithTargetFromEnv(options.runtime, options.env ?? process.env),
      role: options.connectionRole ?? "client",
      ...(options.now ? { now: options.now } : {}),
      ...(options.onConnectionError ? { onConnectionError: options.onConnectionError } : {}),
      ...(options.tracing ? { tracing: createTracing(options.tracing) } : {}),
    });
    const partitions = this.#partitions;
    const runtime = partitions.home;
    this.#runtime = runtime;
    attachClientInternals(this, {
      runtime,
      partitions,
      runtimeOf: (runId) => this.#runtimeOf(runId),
      runtimeOfThread: (thread) => partitions.forThread(thread),
      runEndings: this.#runEndings,
      eventFollowers: () => [...this.followers.values()],
    });
    this.followersPerConnection = options.eventFollowersPerConnection;
    this.#finishedRuns = new FinishedRuns(
      runtime,
      partitions.all.map((partition) => partition.keys.finishedChannel()),
    );
    const followersOf = (partition: ITollgateRuntime) => this.followersOf(partition);
    const approvalPartition = async (approvalId: string) => {
      const partition = partitions.ofId(approvalId);
      if (!partition) throw new TollgateError("TG_APPROVAL_NOT_FOUND", `No approval has id ${approvalId}.`);
      await partition.ready();
      return partition;
    };
    const approvals: GatewayClient["approvals"] = {
      list: async (query = {}) => {
        await runtime.ready();
        const { approvals } = await pageApprovals(partitions, { limit: 1000, ...query });
        return Promise.all(approvals.map((approval) => withQuorumProgress(runtime, approval)));
      },
      page: async (query = {}) => {
        await runtime.ready();
        const page = await pageApprovals(partitions, query);
        return {
          ...page,
          approvals: await Promise.all(
            page.approvals.map((approval) => withQuorumProgress(runtime, approval)),
          ),
        };
      },
      get: async (approvalId) => {
        const runtime = await approvalPartition(approvalId);
        const approval = await runtime.approvals.get(approvalId);
        if (!approval) throw new TollgateError("TG_APPROVAL_NOT_FOUND", `No approval has id ${approvalId}.`);
        return withQuorumProgress(runtime, approval);
      },
      approve: async (approvalId, input) => approve(await approvalPartition(approvalId), approvalId, input),
      reject: async (approvalId, input) => reject(await approvalPartition(approvalId), approvalId, input),
      mayDecide: async (approvalId, approver) => {
        const runtime = await approvalPartition(approvalId);
        const approval = await runtime.approvals.get(approvalId);
        if (!approval) throw new TollgateError("TG_APPROVAL_NOT_FOUND", `No approval has id ${approvalId}.`);
        return decisionAccessOf(await approverAccess(runtime, approval, approver));
      },
      openEvents: (eventsOptions = {}) => openApprovalEvents(partitions.all, followersOf, eventsOptions),
      events: async function* (this: void, eventsOptions: IApprovalEventsOptions = {}) {
        yield* await openApprovalEvents(partitions.all, followersOf, eventsOptions);
      },
    };
    this.approvals = approvals as GatewayClient<TToolName>["approvals"];
    this.schedules = {
      create: async (input) => {
        await runtime.ready();
        const request = withJsonOutputSchema(input.request as TClientRunInput<TToolName>);
        return createSchedule(partitions, { ...input, request });
      },
      list: async (query = {}) => {
        await runtime.ready();
        return listSchedules(partitions, query);
      },
      get: (scheduleId) => getSchedule(partitions, scheduleId),
      pause: (scheduleId) => pauseSchedule(partitions, scheduleId),
      resume: (scheduleId) => resumeSchedule(partitions, scheduleId),
      delete: (scheduleId) => deleteSchedule(partitions, scheduleId),
    };
  }

  /**
   * The partition's runtime that holds a run (or its call or approval: their ids start with the run's).
   * Throws TG_RUN_NOT_FOUND for an id naming a partition this client does not reach.
   */
  #runtimeOf(runId: string): ITollgateRuntime {
    const runtime = this.#partitions.ofId(runId);
    if (!runtime) throw new TollgateError("TG_RUN_NOT_FOUND", `No run has id ${runId}.`, { runId });
    return runtime;
  }

  /**
   * Enqueues a run; resolves once it is stored and queued (it is never lost after that). A zod
   * `output.schema` is converted to JSON Schema here (z.toJSONSchema), as the run stores it.
   */
  async run(input: TClientRunInput<TToolName>): Promise<IEnqueuedRun> {
    const tracing = this.#runtime.tracing;
    if (!tracing) return this.#enqueue(input);
    return inInvokeAgentSpan(tracing, this.#runtime.gateway.settings.name, async (span) => {
      const enqueued = await this.#enqueue(input);
      recordEnqueuedRun(span, enqueued);
      return enqueued;
    });
  }

  async #enqueue(input: TClientRunInput<TToolName>): Promise<IEnqueuedRun> {
    await this.#runtime.ready();
    const jsonInput = withJsonOutputSchema(input);
    return enqueueRun(await partitionForRun(this.#partitions, jsonInput), jsonInput);
  }

  /**
   * Enqueues a run and yields its events as they are written (`text-delta` as the answer streams,
   * `tool-call-settled`, ...), then `{ type: "response" }` with the run's response, last. Leaving the
   * loop early, or `signal` aborting, stops the reading, never the run (`cancel` stops it).
   */
  async *stream(
    input: TClientRunInput<TToolName>,
    options: { signal?: AbortSignal } = {},
  ): AsyncGenerator<TGatewayStreamEvent> {
    const { runId } = await this.run(input);
    for await (const event of this.events(runId, options.signal ? { signal: options.signal } : {})) {
      yield event;
    }
    if (options.signal?.aborted) return;
    // The run has finished: its response with the outputs stored apart put back.
    yield { type: "response", runId, response: await this.wait(runId) };
  }

  /**
   * Enqueues a run and waits for its response. `timeoutMs` becomes the run's deadline (it ends as
   * timed_out); aborting `abortSignal` cancels the run. Either way the response says so. With a zod
   * `output.schema`, the response's `output` has the schema's type (validated against its JSON Schema form).
   * Aborting `options.stopWaiting` only stops waiting (TG_WAIT_TIMEOUT with `details.stoppedWaiting`): the
   * run goes on, as when an HTTP caller of `POST /v1/ask` hangs up.
   */
  async ask<TSchema extends TOutputSchemaInput = TOutputSchemaInput>(
    input: TClientAskInput<TToolName, TSchema>,
    options: { stopWaiting?: AbortSignal } = {},
  ): Promise<IGatewayResponse<TOutputOf<TSchema>, TToolName>> {
    const tracing = this.#runtime.tracing;
    if (!tracing) return this.#ask(input, options);
    // One span from the request to the response: the run's own spans (in the workers) are inside it.
    return inInvokeAgentSpan(tracing, this.#runtime.gateway.settings.name, (span) =>
      this.#ask(input, options, (run) => recordEnqueuedRun(span, run)),
    );
  }

  async #ask<TSchema extends TOutputSchemaInput = TOutputSchemaInput>(
    input: TClientAskInput<TToolName, TSchema>,
    options: { stopWaiting?: AbortSignal },
    onEnqueued?: (run: IEnqueuedRun) => void,
  ): Promise<IGatewayResponse<TOutputOf<TSchema>, TToolName>> {
    const { abortSignal, ...runInput } = input;
    if (abortSignal?.aborted)
      throw new TollgateError("TG_INVALID_REQUEST", "The abort signal was already aborted.");
    // Subscribed before the run exists, so its finish cannot be missed and nothing is read before waiting.
    await this.#runtime.ready();
    await this.#finishedRuns.ready();
    const enqueued = await this.#enqueue(runInput);
    onEnqueued?.(enqueued);
    const { runId, created } = enqueued;
    const response = waitForRun(this.#runtimeOf(runId), this.#finishedRuns, runId, {
      // A retried request with the same idempotency key found its run: that one may have finished already.
      createdAfterSubscribe: created,
      runEndings: this.#runEndings,
      ...(abortSignal ? { abortSignal } : {}),
      ...(options.stopWaiting ? { stopWaiting: options.stopWaiting } : {}),
      ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
    });
    // The output passed the schema's JSON Schema form in the worker.
    return response as Promise<IGatewayResponse<TOutputOf<TSchema>, TToolName>>;
  }

  /** Waits for a run already enqueued. */
  wait(
    runId: string,
    options: { abortSignal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<IGatewayResponse<unknown, TToolName>> {
    const response = waitForRun(this.#runtimeOf(runId), this.#finishedRuns, runId, {
      ...options,
      runEndings: this.#runEndings,
    });
    return response as Promise<IGatewayResponse<unknown, TToolName>>;
  }

  async getRun(runId: string): Promise<IRunView<TToolName>> {
    const runtime = this.#runtimeOf(runId);
    await runtime.ready();
    const stored = await runtime.runs.load(runId);
    if (!stored) throw new TollgateError("TG_RUN_NOT_FOUND", `No run has id ${runId}.`, { runId });
    const state = stored.state;
    const reruns = runtime.runs.rerunsOf(runId);
    const forks = runtime.runs.forksOf(runId);
    const pendingApprovals = isTerminal(state) ? [] : await runtime.approvals.listPending({ runId });
    const resumedBy = runtime.runs.resumedBy(runId);
    const view: IRunView = {
      runId,
      threadId: state.threadId,
      status: viewStatusOf(state, pendingApprovals.length),
      phase: state.phase,
      steps: state.modelCalls,
      createdAt: state.createdAt,
      pendingApprovals,
      userId: state.request.userContext.userId,
      input: state.request.input,
    };
    if (state.startedAt !== undefined) view.startedAt = state.startedAt;
    if (state.finishedAt !== undefined) view.finishedAt = state.finishedAt;
    if (state.request.metadata) view.metadata = state.request.metadata;
    if (state.request.tenant !== undefined) view.tenant = state.request.tenant;
    if (state.request.createdBy !== undefined) view.createdBy = state.request.createdBy;
    if (isTerminal(state)) view.response = await runtime.runs.withOutputs(runId, responseOf(state));
    else view.progress = await runtime.runs.withOutputs(runId, runProgressOf(state));
    if (state.request.rerunOf !== undefined) view.rerunOf = state.request.rerunOf;
    if (state.request.scheduleId !== undefined) view.scheduleId = state.request.scheduleId;
    if (state.request.scheduledAt !== undefined) view.scheduledAt = state.request.scheduledAt;
    const rerunIds = await reruns;
    if (rerunIds.length > 0) view.reruns = rerunIds;
    if (state.request.forkOf !== undefined) view.forkOf = state.request.forkOf;
    const forkLinks = await forks;
    if (forkLinks.length > 0) view.forks = forkLinks;
    if (state.request.resumeOf !== undefined) view.resumeOf = state.request.resumeOf;
    const resumeId = await resumedBy;
    if (resumeId !== undefined) view.resumedBy = resumeId;
    return view as IRunView<TToolName>;
  }

  /**
   * One page of runs, newest first, every filter exact (status, user, thread, tool called, creator,
   * creation time; `tenant` limits it to one tenant's); pass `nextCursor` for the next page.
   */
  async listRuns(query: IRunQuery = {}): Promise<IRunPage> {
    await this.#runtime.ready();
    return pageRuns(this.#partitions, query);
  }

  /**
   * A new run with `runId`'s request, with another `input` or `userContext` if given; the two runs name
   * each other (`rerunOf`, `reruns`). TG_RUN_NOT_FOUND for a run this client does not know.
   */
  rerun(runId: string, changes: IRerunChanges = {}): Promise<IRerunResult> {
    return rerunRun(this.#partitions, runId, changes);
  }

  /**
   * A new run that starts from `runId`'s state just before its call `fromCallId` (earlier model replies
   * and tool results taken from the stored run, not asked or run again), runs that call (with `input`
   * if given: checked by the tool's schema, decided by the policy, approved if it must be) and goes on
   * live. The two runs name each other (`forkOf`, `forks`). TG_RUN_NOT_FOUND, TG_CALL_NOT_FOUND,
   * TG_CALL_NOT_FORKABLE, TG_FORK_INVALID_INPUT; nothing is created when refused.
   */
  fork(runId: string, from: IForkFrom): Promise<IForkResult> {
    return forkRun(this.#partitions, runId, from);
  }

  /**
   * Continues a failed, timed-out or cancelled run from its last durable state, as a new run that names it
   * (`resumeOf`; the original shows `resumedBy`): its completed calls and model replies are taken over and
   * never run or asked again; the step that failed is tried again (the model asked again, or the calls its
   * ending cut planned again under their tools' own policy and retries). One resume per run: a repeated
   * request answers the same run (`created: false`). TG_RUN_NOT_RESUMABLE (nothing created) for a run that
   * completed or has not finished, or while a call it cut may still run (try again once it ended).
   */
  resume(runId: string, changes: IResumeChanges = {}): Promise<IResumeResult> {
    return resumeRun(this.#partitions, runId, changes);
  }

  /** The run's conversation so far, as a reviewer reads it before deciding one of its parked calls. */
  async transcript(runId: string): Promise<IRunTranscript> {
    // The run's own partition: its id names it.
    const runtime = this.#runtimeOf(runId);
    await runtime.ready();
    const stored = await runtime.runs.load(runId);
    if (!stored) throw new TollgateError("TG_RUN_NOT_FOUND", `No run has id ${runId}.`, { runId });
    return transcriptOf(stored.state);
  }

  /** Cancels a run: in-flight tools see their signal aborted, parked approvals go, no model call follows. */
  async cancel(runId: string, reason: TCancelReason = "cancelled"): Promise<void> {
    const runtime = this.#runtimeOf(runId);
    await runtime.ready();
    const { alreadyFinished } = await requestCancel(runtime, runId, reason, this.#runEndings);
    if (alreadyFinished)
      throw new TollgateError("TG_RUN_FINISHED", `Run ${runId} has already finished.`, { runId });
  }

  /**
   * Deletes a thread: its history, its run lists, and the state and events of every run it had. Refused
   * (TG_THREAD_BUSY) while a run of it is queued or running, unless `force`, which cancels them first.
   * Safe to repeat; a thread that does not exist is deleted already. Thread ids are scoped per tenant:
   * this deletes the thread of `tenant` (default: the default tenant) with that id, no other tenant's.
   */
  async deleteThread(
    threadId: string,
    options: { force?: boolean; tenant?: string } = {},
  ): Promise<IDeletedThread> {
    await this.#runtime.ready();
    const thread = { tenant: options.tenant ?? defaultTenant, threadId };
    // Where the thread's runs go now, and where the previous layout put them: delete it in both.
    const deletions: IDeletedThread[] = [];
    for (const runtime of this.#partitions.ofThread(threadId)) {
      deletions.push(await deleteThread(runtime, thread, options.force === true, this.#runEndings));
    }
    return {
      threadId,
      deletedRuns: deletions.reduce((sum, deleted) => sum + deleted.deletedRuns, 0),
      cancelledRuns: deletions.reduce((sum, deleted) => sum + deleted.cancelledRuns, 0),
    };
  }

  /**
   * Tokens per tenant and model counted over the UTC days `from` to `to` (YYYY-MM-DD, both included;
   * default today), for one tenant or all.
   */
  async usage(range: { from?: string; to?: string; tenant?: string } = {}): Promise<{
    from: string;
    to: string;
    counts: IUsageCount[];
  }> {
    await this.#runtime.ready();
    const to = range.to ?? range.from ?? usageDayOf(this.#runtime.now());
    const from = range.from ?? to;
    const counts = await this.#runtime.usage.read({
      fromDay: from,
      toDay: to,
      ...(range.tenant !== undefined ? { tenant: range.tenant } : {}),
    });
    return { from, to, counts };
  }

  /**
   * Every tool a run may be offered (what `GET /v1/tools` shows): the gateway's, then its MCP servers'
   * tools as the workers published them, and each server's status (`not_listed` when no worker published it).
   */
  async listTools(): Promise<IToolListing> {
    await this.#runtime.ready();
    return listTools(this.#runtime);
  }

  /**
   * Who a run belongs to (its tenant and creator) and who it acts for (its user context: a replay takes
   * it over), undefined for a run it does not know.
   */
  async runOwner(
    runId: string,
  ): Promise<{ tenant?: string; createdBy?: string; userContext: IUserContext } | undefined> {
    const runtime = this.#partitions.ofId(runId);
    if (!runtime) return undefined;
    await runtime.ready();
    const stored = await runtime.runs.load(runId);
    if (!stored) return undefined;
    const { tenant, createdBy, userContext } = stored.state.request;
    return {
      userContext,
      ...(tenant !== undefined ? { tenant } : {}),
      ...(createdBy !== undefined ? { createdBy } : {}),
    };
  }

  /**
   * The run's events, oldest first, from after `afterId`; ends after `run-finished` or when `signal`
   * aborts. Live runs are followed on connections shared with every other follower of this client.
   */
  async *events(runId: string, options: IRunEventsOptions = {}): AsyncGenerator<IRunEvent<TToolName>> {
    yield* await this.openEvents(runId, options);
  }

  /**
   * As `events`, but refuses at once what `events` refuses at its first read (TG_RUN_NOT_FOUND,
   * TG_BAD_REQUEST for a bad `afterId`): an HTTP stream is opened only for a run that exists.
   */
  openEvents(runId: string, options: IRunEventsOptions = {}): Promise<AsyncGenerator<IRunEvent<TToolName>>> {
    const runtime = this.#partitions.ofId(runId);
    if (!runtime) {
      return Promise.reject(new TollgateError("TG_RUN_NOT_FOUND", `No run has id ${runId}.`, { runId }));
    }
    const events = openRunEvents(runtime, this.followersOf(runtime), runId, options);
    return events as Promise<AsyncGenerator<IRunEvent<TToolName>>>;
  }

  private followersOf(runtime: ITollgateRuntime): EventFollowers {
    let followers = this.followers.get(runtime);
    if (!followers) {
      followers = new EventFollowers(runtime, {
        ...(this.followersPerConnection !== undefined
          ? { followersPerConnection: this.followersPerConnection }
          : {}),
      });
      this.followers.set(runtime, followers);
    }
    return followers;
  }

  /** The gateway this client enqueues runs for. */
  get gateway(): IGateway {
    return this.#runtime.gateway;
  }

  /**
   * Whether the client's connection can take commands right now. It queues nothing while down, so a
   * command fails at once then; its stream stops being writable before its status changes.
   */
  isConnected(): boolean {
    return connectionUsable(this.#runtime.redis);
  }

  /**
   * Resolves when Redis takes a write: a short-lived key under the prefix is set. A Redis that answers
   * PING may still refuse every write (full, read-only replica), and then nothing here works either.
   */
  async checkReady(): Promise<void> {
    await this.#runtime.ready();
    const now = String(this.#runtime.now());
    // Every partition's slot: on a cluster each may be on another master.
    await Promise.all(
      this.#partitions.all.map((runtime) =>
        runtime.redis.set(runtime.keys.readinessProbe(), now, "PX", readinessProbeTtlMs),
      ),
    );
  }

  close(): Promise<void> {
    this.#finishedRuns.close();
    for (const followers of this.followers.values()) followers.close();
    return this.#partitions.close();
  }
}

/** What `GatewayClient.stream` yields: the run's events, then its response. */
export type TGatewayStreamEvent = IRunEvent | { type: "response"; runId: string; response: IGatewayResponse };

/**
 * A run's status on its own page: `waiting` exactly while one of its approvals is pending (read from the
 * approvals, which know a decision at once; the run's record takes it up when the run next moves).
 */
function viewStatusOf(state: TRunState, pendingApprovals: number): TRunState["status"] {
  if (isTerminal(state)) return state.status;
  if (pendingApprovals > 0) return "waiting";
  return state.status === "waiting" ? "running" : state.status;
}
