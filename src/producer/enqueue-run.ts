import { createHash } from "node:crypto";
import { defaultTenant, type IRunEventDataByType, tenantOf } from "../contracts/index.js";
import {
  createRunState,
  forkRunState,
  type IForkStart,
  type IResumeStart,
  type IResumeSummary,
  type IRunTools,
  resumeRunState,
  type TRunRequest,
  type TRunState,
} from "../engine/index.js";
import { describeFieldIssues, TollgateError, toFieldIssues } from "../errors/index.js";
import { modelNamesOf, runToolRegistry, type TNamedModelsSettings } from "../gateway/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { storeNewRun } from "../runtime/store-new-run.js";
import type { IThreadRef } from "../store/index.js";
import { assertMcpToolsListed } from "./mcp-tool-check.js";
import { outputOfRequest } from "./output-of-request.js";
import { randomId } from "./random-id.js";
import { repeatsEffectsError, replayToolsOf } from "./replay-tools.js";
import { runInputSchema, type TRunInput } from "./run-input-schema.js";

export interface IEnqueuedRun {
  runId: string;
  threadId: string;
  status: TRunState["status"];
  /** False when an idempotency key matched an existing run. */
  created: boolean;
}

/** What a resume continues: the stored run and what became of the calls its ending cut. */
export interface IResumeOrigin {
  /** The original's state, with its outputs stored apart put back. */
  original: TRunState;
  /** The cut calls whose tool job completed after the original ended, by the original's call id. */
  lateExecutions: IResumeStart["lateExecutions"];
}

/** Where a fork starts: the stored run, the call it runs again, and that call's new input if any. */
export interface IForkOrigin {
  /** The original's state, with its outputs stored apart put back. */
  original: TRunState;
  fromCallId: string;
  edit?: { input: unknown };
  /** Run again the calls from the fork point on that may have changed the world (else refused). */
  repeatEffects?: boolean;
}

/**
 * Validates a run request, then stores the run and queues its job in one atomic step (an error answer
 * means nothing exists). A re-run names its origin; a fork starts from the state the engine builds from
 * the original's (forkRunState), refused (nothing stored, no rate spent) when the engine refuses it. With
 * an idempotency key the run id is derived from it, so a retried request returns the same run (and a
 * different request with the same key is a conflict). Nothing is queued for a request that fails
 * validation.
 */
export async function enqueueRun(
  runtime: ITollgateRuntime,
  rawInput: unknown,
  origin: IRunOrigin = {},
): Promise<IEnqueuedRun> {
  const { input, request, tenant, registry } = prepareRunRequest(runtime, rawInput, origin);
  await assertMcpToolsListed(runtime, input.tools);
  // Ids name the partition (nothing in the unpartitioned layout): any process finds them without a lookup.
  const { partition } = runtime;
  const threadId = input.threadId ?? `${partition.threadIdPrefix}${randomId()}`;
  const runId = origin.resume
    ? resumeRunIdOf(partition.runIdPrefix, tenant, origin.resume.original.runId)
    : input.idempotencyKey
      ? idempotentRunId(partition.runIdPrefix, tenant, input.idempotencyKey)
      : `${partition.runIdPrefix}${randomId()}`;
  // Every resume of a run is the same request: a repeated one finds the first's run.
  const requestHash = origin.resume
    ? sha256(`resume\u0000${origin.resume.original.runId}`)
    : sha256(JSON.stringify({ request, threadId: input.threadId ?? null }));
  const start = { runId, threadId, request, requestHash };
  // A fork or a resume is checked (its call found, its edit parsed) before the rate is taken: a refusal
  // costs nothing.
  const forked = origin.fork
    ? await forkStateOf(
        origin.fork,
        { ...start, now: runtime.now() },
        await replayToolsOf(runtime, origin.fork.original, registry),
      )
    : undefined;
  const resumed = origin.resume
    ? await resumeStateOf(
        origin.resume,
        { ...start, now: runtime.now(), ownsThread: input.threadId === undefined },
        await replayToolsOf(runtime, origin.resume.original, registry),
      )
    : undefined;
  // Both reads leave in one write (auto-pipelined); the second is made only on a named thread.
  await Promise.all([
    takeRunRate(runtime, tenant),
    input.threadId !== undefined
      ? assertThreadReachable(runtime, { tenant, threadId: input.threadId })
      : undefined,
  ]);
  const now = runtime.now();
  const first = forked ?? resumed?.state;
  const state = first
    ? { ...first, createdAt: now, updatedAt: now }
    : createRunState({
        runId,
        threadId,
        request,
        requestHash,
        now,
        ownsThread: input.threadId === undefined,
      });
  const { created, state: stored } = await storeNewRun(
    runtime,
    state,
    {
      type: "run-queued",
      data: {
        threadId,
        userId: request.userContext.userId,
        ...(request.tenant !== undefined ? { tenant: request.tenant } : {}),
        ...(request.createdBy !== undefined ? { createdBy: request.createdBy } : {}),
        ...originOf(request),
      },
    },
    resumed ? [{ type: "run-resumed", data: resumed.summary }] : [],
  );
  if (!created && stored.requestHash !== requestHash) {
    throw new TollgateError(
      "TG_IDEMPOTENCY_CONFLICT",
      "This idempotency key was already used for a different request.",
      { runId },
    );
  }
  return { runId, threadId: stored.threadId, status: stored.status, created };
}

/** The request's origin fields, as the `run-queued` event carries them (a follower sees where a run comes from). */
function originOf(request: TRunRequest): Partial<IRunEventDataByType["run-queued"]> {
  return {
    ...(request.rerunOf !== undefined ? { rerunOf: request.rerunOf } : {}),
    ...(request.forkOf !== undefined ? { forkOf: request.forkOf } : {}),
    ...(request.resumeOf !== undefined ? { resumeOf: request.resumeOf } : {}),
    ...(request.scheduleId !== undefined ? { scheduleId: request.scheduleId } : {}),
    ...(request.scheduledAt !== undefined ? { scheduledAt: request.scheduledAt } : {}),
  };
}

/** Where a run came from, when not from a caller's request alone. */
export interface IRunOrigin {
  /** The run it re-runs. */
  rerunOf?: string;
  /** The run and call it forks from. */
  fork?: IForkOrigin;
  /** The run it resumes (its id derives from that run's: one resume per run). */
  resume?: IResumeOrigin;
  /** The schedule whose tick creates it, and the tick's time. */
  schedule?: { scheduleId: string; scheduledAt: number };
}

/**
 * Checks a run request as `POST /v1/runs` does, writing nothing and counting nothing: a schedule's request
 * is checked so when the schedule is created, so that its ticks do not fail at 3 a.m.
 */
export async function validateRunRequest(runtime: ITollgateRuntime, rawInput: unknown): Promise<TRunInput> {
  const { input, tenant } = prepareRunRequest(runtime, rawInput, {});
  await assertMcpToolsListed(runtime, input.tools);
  if (input.threadId !== undefined)
    await assertThreadReachable(runtime, { tenant, threadId: input.threadId });
  return input;
}

/** The request validated (shape, size, tools, model, output schema) and as the engine stores it. */
function prepareRunRequest(
  runtime: ITollgateRuntime,
  rawInput: unknown,
  origin: IRunOrigin,
): { input: TRunInput; request: TRunRequest; tenant: string; registry: IRunTools["registry"] } {
  const parsed = runInputSchema.safeParse(rawInput);
  if (!parsed.success) {
    const issues = toFieldIssues(parsed.error);
    throw new TollgateError("TG_INVALID_REQUEST", `Invalid run request: ${describeFieldIssues(issues)}`, {
      issues,
    });
  }
  const input = parsed.data;
  const { gateway } = runtime;
  if (input.input.length > gateway.settings.maxInputChars) {
    throw new TollgateError(
      "TG_PAYLOAD_TOO_LARGE",
      `The input has ${input.input.length} characters; the limit is ${gateway.settings.maxInputChars}.`,
      { issues: [{ path: "input", message: `longer than ${gateway.settings.maxInputChars} characters` }] },
    );
  }
  const registry = runToolRegistry(gateway, input);
  if (input.model !== undefined) assertKnownModel(gateway.settings.models, input.model);
  const output = outputOfRequest(input.output, gateway.settings.output);
  const request: TRunRequest = {
    input: input.input,
    userContext: input.userContext,
    additionalTools: input.additionalTools ?? [],
    maxSteps: input.maxSteps ?? gateway.settings.maxSteps,
    ...(input.tools ? { tools: input.tools } : {}),
    ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
    ...(input.metadata ? { metadata: input.metadata } : {}),
    ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
    ...(input.tenant !== undefined ? { tenant: input.tenant } : {}),
    ...(input.createdBy !== undefined ? { createdBy: input.createdBy } : {}),
    ...(input.model !== undefined ? { model: input.model } : {}),
    ...budgetOf(input.maxTotalTokens, gateway.settings.maxTotalTokens, "maxTotalTokens"),
    ...budgetOf(input.maxToolCalls, gateway.settings.maxToolCalls, "maxToolCalls"),
    ...(output ? { output } : {}),
    ...(origin.rerunOf !== undefined ? { rerunOf: origin.rerunOf } : {}),
    ...(origin.fork !== undefined
      ? { forkOf: { runId: origin.fork.original.runId, callId: origin.fork.fromCallId } }
      : {}),
    ...(origin.resume !== undefined ? { resumeOf: origin.resume.original.runId } : {}),
    ...(origin.schedule !== undefined
      ? { scheduleId: origin.schedule.scheduleId, scheduledAt: origin.schedule.scheduledAt }
      : {}),
  };
  return { input, request, tenant: tenantOf(input), registry };
}

/**
 * The fork's first state, or the engine's refusal as a TollgateError (nothing is stored): also
 * TG_RERUN_REPEATS_EFFECTS when it would run again calls that may have changed the world, unasked.
 */
async function forkStateOf(
  fork: IForkOrigin,
  created: Omit<IForkStart, "fromCallId" | "edit">,
  tools: IRunTools,
): Promise<TRunState> {
  const started = await forkRunState(
    fork.original,
    { ...created, fromCallId: fork.fromCallId, ...(fork.edit !== undefined ? { edit: fork.edit } : {}) },
    tools,
  );
  if (started.ok) {
    if (started.repeats.length > 0 && fork.repeatEffects !== true)
      throw repeatsEffectsError(fork.original.runId, started.repeats, "fork");
    return started.state;
  }
  const { code, message, details } = started.refusal;
  throw new TollgateError(code, message, details);
}

/** The resume's first state and what it says of itself, or the engine's refusal (nothing is stored). */
async function resumeStateOf(
  resume: IResumeOrigin,
  created: Omit<IResumeStart, "lateExecutions">,
  tools: IRunTools,
): Promise<{ state: TRunState; summary: IResumeSummary }> {
  const started = await resumeRunState(
    resume.original,
    { ...created, lateExecutions: resume.lateExecutions },
    tools,
  );
  if (started.ok) return started;
  const { code, message, details } = started.refusal;
  throw new TollgateError(code, message, details);
}

/**
 * The id of the one resume of `runId`, in the partition whose run ids start with `runIdPrefix`: derived
 * from the run's id as an idempotency key derives one, from a key no request can send (it starts with a
 * NUL), so that concurrent and repeated resumes create one run.
 */
export function resumeRunIdOf(runIdPrefix: string, tenant: string, runId: string): string {
  return idempotentRunId(runIdPrefix, tenant, `\u0000resume\u0000${runId}`);
}

/** The run id an idempotency key derives, in the partition whose run ids start with `runIdPrefix`. */
export function idempotentRunId(runIdPrefix: string, tenant: string, idempotencyKey: string): string {
  return `${runIdPrefix}${sha256(idempotencyScope(tenant, idempotencyKey)).slice(0, 32)}`;
}

/**
 * Idempotency keys are scoped per tenant: two tenants using the same key get two runs. The default
 * tenant keeps the key alone, so run ids derived before tenants existed stay the same.
 */
export function idempotencyScope(tenant: string, idempotencyKey: string): string {
  return tenant === defaultTenant ? idempotencyKey : `${tenant}\u0000${idempotencyKey}`;
}

/**
 * Thread ids are scoped per tenant (the thread's keys name its tenant), so naming a thread reaches only
 * the caller's own: nothing to claim or check, except for the default tenant, whose thread keys are the
 * unscoped ones another tenant's thread had before scoping. While such a thread lives it is told the
 * thread does not exist (404), never given that tenant's history.
 */
async function assertThreadReachable(runtime: ITollgateRuntime, thread: IThreadRef): Promise<void> {
  if (!(await runtime.threads.heldByAnotherTenant(thread))) return;
  throw new TollgateError("TG_THREAD_NOT_FOUND", `No thread has id ${thread.threadId}.`, {
    threadId: thread.threadId,
  });
}

/**
 * Counts the run against its tenant's runs per minute, after validation (a refused request costs no
 * place) and before anything is stored. A retried idempotent request counts again.
 */
async function takeRunRate(runtime: ITollgateRuntime, tenant: string): Promise<void> {
  const retryAfterMs = await runtime.limits.takeRunRate(tenant);
  if (retryAfterMs === undefined) return;
  throw new TollgateError(
    "TG_RATE_LIMITED",
    `The tenant ${JSON.stringify(tenant)} created as many runs as it may this minute; retry later.`,
    { tenant, retryAfterMs },
  );
}

/** A request's budget is at most the gateway's: the lower of the two, or whichever is set. */
function budgetOf<TKey extends "maxTotalTokens" | "maxToolCalls">(
  requested: number | undefined,
  gatewayLimit: number | undefined,
  key: TKey,
): Partial<Record<TKey, number>> {
  const limits = [requested, gatewayLimit].filter((limit): limit is number => limit !== undefined);
  return limits.length === 0 ? {} : ({ [key]: Math.min(...limits) } as Partial<Record<TKey, number>>);
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** A request naming a model the gateway lacks is refused before anything is stored, naming the known ones. */
function assertKnownModel(models: TNamedModelsSettings, model: string): void {
  const known = modelNamesOf(models);
  if (known.includes(model)) return;
  const message = `unknown model "${model}"; known: ${known.join(", ")}`;
  throw new TollgateError("TG_INVALID_REQUEST", `Invalid run request: model: ${message}`, {
    issues: [{ path: "model", message }],
    knownModels: known,
  });
}
