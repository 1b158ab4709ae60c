import type { ZodType } from "zod";
import type { TRejectOption } from "./reject-options.js";
import type { IUserContext } from "./user-context.js";
import type { EToolCallVerdict, TToolCallPolicyResult } from "./verdict.js";

/**
 * Where a tool's execute runs: in the worker's event loop (`inline`, fastest), in a pool of worker threads
 * (`thread`), or in a pool of child processes (`process`). With isolation, a tool past its timeout is
 * terminated and a tool that blocks its event loop cannot starve the worker's lock renewals.
 */
export type TToolIsolation = "inline" | "thread" | "process";

/** What `visibleWhen` is asked with, before every model call of a run. */
export interface IToolVisibilityArgs {
  /** 0 for the first model call of the run. */
  stepIndex: number;
  /** Names of the tools executed successfully so far in this run, in order, with repeats. */
  executed: readonly string[];
}

/** In which steps the model is offered a tool (design decision D89: visibleWhen). */
export type TToolVisibleWhenHandler = (args: IToolVisibilityArgs) => boolean;

/** What a policy predicate decides on. */
export interface IToolPolicyArgs<TInput> {
  input: TInput;
  userContext: IUserContext;
  toolName: string;
  threadId: string;
}

export type TToolPolicyPredicate<TInput> = (
  args: IToolPolicyArgs<TInput>,
) => TToolCallPolicyResult | Promise<TToolCallPolicyResult>;

export type TToolEndsRunPredicate<TInput, TOutput> = (args: {
  input: TInput;
  output: TOutput;
}) => boolean | Promise<boolean>;

/** What `execute` receives. */
export interface IToolExecuteArgs<TInput> {
  /** Validated input. */
  input: TInput;
  /** Aborted at the tool's timeout or when the run is cancelled. Pass it to fetch / the SDK the tool calls. */
  abortSignal: AbortSignal;
  /** Thread of the call. */
  threadId: string;
  /** Who is calling. */
  userContext: IUserContext;
  /**
   * Stable id of this call, the same on every attempt: use it as the idempotency key of what the tool
   * does downstream, since a call whose worker died mid-call is run again (at-least-once).
   */
  callId: string;
  /** The run this call belongs to. */
  runId: string;
}

/**
 * A tool's input described by a JSON Schema instead of zod: what a tool served by another service (an MCP
 * server, an HTTP endpoint) declares. Built with `jsonSchemaInput`, which copies and freezes the schema;
 * the registry validates inputs with ajv (2020-12 dialect) and the model reads the schema, normalized for
 * its endpoint. `TInput` is only a compile-time promise: nothing checks it beyond the schema.
 */
export interface IJsonSchemaToolInput<TInput = unknown> {
  readonly kind: "json-schema";
  /** The JSON Schema of the input (a root object), as the tool declares it. */
  readonly jsonSchema: Readonly<Record<string, unknown>>;
  /** Never set: carries TInput for inference, as zod's schemas do. */
  readonly "~input"?: TInput;
}

/** What a tool's input is described by: a zod schema, or a JSON Schema (`jsonSchemaInput`). */
export type TToolInputSchema<TInput = unknown> = ZodType<TInput> | IJsonSchemaToolInput<TInput>;

/** Whether a tool's input schema is a JSON Schema (`jsonSchemaInput`) rather than zod's. */
export function isJsonSchemaToolInput(value: unknown): value is IJsonSchemaToolInput {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { kind?: unknown }).kind === "json-schema" &&
    typeof (value as { jsonSchema?: unknown }).jsonSchema === "object" &&
    (value as { jsonSchema?: unknown }).jsonSchema !== null &&
    !Array.isArray((value as { jsonSchema?: unknown }).jsonSchema)
  );
}

/**
 * Where a tool served over HTTP is sent (set by `httpTool`, read by the gateway): its host must be on the
 * gateway's `httpTools.allowedHosts`.
 */
export interface IHttpToolEndpoint {
  readonly url: string;
  readonly method: "POST" | "PUT" | "PATCH";
  /** Whether the tool may reach private, loopback and link-local addresses. */
  readonly allowPrivateAddresses: boolean;
}

/**
 * One tool as the application defines it: the name and description the model reads, the Zod schema of
 * the input, the policy, when it ends the run, when it is offered, its limits, and the execute that does
 * the work. Write it with `defineTool` so TInput and TOutput are inferred.
 */
export interface IToolDef<TInput = unknown, TOutput = unknown, TName extends string = string> {
  /**
   * Unique, snake_case; the model refers to it by this name. `defineTool` keeps it as a literal type, so
   * the gateway and its client know the names at compile time.
   */
  name: TName;
  /** What the model reads to decide when to call it. */
  description: string;
  /**
   * Schema of the input, zod's or a JSON Schema (`jsonSchemaInput`); the registry parses the model's input
   * with it before anything else, and a human's edit of a parked call is checked against it.
   */
  inputSchema: TToolInputSchema<TInput>;
  /** Free tags for policy filtering, e.g. "billing". */
  tags?: string[];
  /**
   * The tool changes nothing outside itself (a lookup, a search), as MCP's `readOnlyHint` says: running
   * its calls again repeats no effect, so a rerun or a fork repeats them without asking. Omitted: the
   * tool may have effects, and a rerun or fork that would run its completed calls again is refused with
   * TG_RERUN_REPEATS_EFFECTS unless it says `repeatEffects`. @defaultValue false
   */
  readOnly?: boolean;
  /**
   * Calling it again with the same input has no effect beyond the first call's, as MCP's
   * `idempotentHint` says (a refund keyed by its order, a status set to a value). Shown in the tool
   * catalogue for a person deciding whether to repeat a call; a rerun still names its calls unless the
   * tool is `readOnly` (a new run's calls have new ids and may have other inputs). @defaultValue false
   */
  idempotent?: boolean;
  /**
   * A verdict for every call, or a predicate deciding per call on the parsed input and the user context.
   * @defaultValue EToolCallVerdict.ALLOW
   */
  policy?: EToolCallVerdict | TToolPolicyPredicate<TInput>;
  /**
   * Overrides the gateway's approval TTL for this tool: how long a parked call waits for a human.
   */
  approvalTtlMs?: number;
  /**
   * Named ways to reject this tool's parked calls (HumanLayer's shape): one button in the console and one
   * signed link per option; the model reads the chosen option's `promptFill`. Overrides the gateway's
   * `rejectOptions` for this tool. Names are unique, lower-case.
   */
  rejectOptions?: readonly TRejectOption[];
  /** Executes the tool. Write it before `endsRun` so a predicate there sees the typed output. */
  execute(args: IToolExecuteArgs<TInput>): Promise<TOutput>;
  /**
   * Whether a successful call ends the run (design decision D86: a tool's call may end the run): `true` for
   * every call, or a predicate on input and output. @defaultValue false
   */
  endsRun?: boolean | TToolEndsRunPredicate<TInput, TOutput>;
  /** In which steps the model is offered this tool (D89). Omitted = every step. */
  visibleWhen?: TToolVisibleWhenHandler;
  /**
   * Overrides IToolRegistryConfig.toolTimeoutMs for this tool (design decision D60: a tool's own timeout and
   * output cap).
   */
  timeoutMs?: number;
  /** Overrides IToolRegistryConfig.maxOutputChars for this tool (D60). */
  maxOutputChars?: number;
  /** Overrides IToolRegistryConfig.maxStoredOutputBytes for this tool. */
  maxStoredOutputBytes?: number;
  /**
   * Overrides IToolRegistryConfig.isolation for this tool. `thread` and `process` need the gateway's
   * `module`: execute runs in a thread or child process that imports it and receives the parsed input by
   * structured clone.
   */
  isolation?: TToolIsolation;
  /**
   * Set by `httpTool` for a tool served over HTTP: where its calls go. The gateway refuses a host that is
   * not on its `httpTools.allowedHosts`.
   */
  http?: IHttpToolEndpoint;
}

/**
 * A tool definition of any input and output, for collections of tools. `any` is deliberate: a predicate's
 * parameter is contravariant, so a concrete tool is not assignable to `IToolDef<unknown, unknown>`.
 */
// biome-ignore lint/suspicious/noExplicitAny: see the comment above.
export type TAnyToolDef = IToolDef<any, any>;

/**
 * Defines a tool with TInput inferred from `inputSchema`, TOutput from `execute` and TName from `name`
 * (a literal). It returns its argument: the checks happen when a registry is built.
 */
export function defineTool<TInput, TOutput, const TName extends string = string>(
  definition: IToolDef<TInput, TOutput, TName>,
): IToolDef<TInput, TOutput, TName> {
  return definition;
}

/** The name of a tool definition, or the union of the names of a list of them. */
export type TToolNameOf<TTool> = TTool extends { readonly name: infer TName extends string } ? TName : never;

/** For policy filters, the verdict kind of a tool: what `GET /v1/tools` shows. */
export type TToolPolicyKind = EToolCallVerdict | "PREDICATE";
