import type {
  IToolErrorReport,
  IToolRegistryConfig,
  TAnyToolDef,
  TToolIsolation,
} from "../contracts/index.js";
import { type IFieldIssue, TollgateError } from "../errors/index.js";
import { type IClock, systemClock } from "./clock.js";
import { jsonTextNestsDeeperThan, maxArgumentsDepth } from "./json-text-depth.js";
import {
  type IToolCallFailure,
  invalidArgumentsFailure,
  invalidInputFailure,
  unexpectedFailure,
  unknownToolFailure,
} from "./model-text.js";
import { parseWithSchema, type TSchemaParseResult } from "./parse-with-schema.js";
import { type IToolLimits, runParsedCall } from "./run-parsed-call.js";
import { defaultMaxStoredOutputBytes } from "./stored-output.js";
import { failedExecution, type IToolExecution, type IToolExecutionRequest } from "./tool-execution.js";
import { isIsolation, isPositiveLimit, maxTimerDelayMs, validateToolDefinition } from "./validate-tool.js";

export const defaultMaxOutputChars = 20_000;
export const defaultToolTimeoutMs = 30_000;

export interface IToolRegistryOptions {
  /** Time for durations and timeouts. @defaultValue the process's clock */
  clock?: IClock;
}

export type TToolInputParse =
  | { ok: true; input: unknown }
  /** `error` is set when the schema itself threw: a bug of the tool, reported as an unexpected failure. */
  | { ok: false; failure: IToolCallFailure; issues: IFieldIssue[]; error?: unknown };

/**
 * The tools of a gateway: validated once at construction, looked up by name as own entries only, and the
 * one place a tool is executed (schema first, under its timeout, output truncated, errors shaped).
 */
export class ToolRegistry {
  readonly maxOutputChars: number;
  readonly toolTimeoutMs: number;
  readonly maxStoredOutputBytes: number;
  readonly isolation: TToolIsolation;
  private readonly config: IToolRegistryConfig;
  private readonly clock: IClock;
  /** A Map, so names like `__proto__` or `constructor` find nothing inherited. */
  private readonly toolsByName = new Map<string, TAnyToolDef>();

  constructor(config: IToolRegistryConfig, options: IToolRegistryOptions = {}) {
    if (!Array.isArray(config?.tools)) {
      throw new TollgateError("TG_INVALID_CONFIG", "The tool registry needs `tools`, an array of tools.");
    }
    this.maxOutputChars = readLimit(config.maxOutputChars, defaultMaxOutputChars, "maxOutputChars");
    this.toolTimeoutMs = readLimit(config.toolTimeoutMs, defaultToolTimeoutMs, "toolTimeoutMs");
    this.maxStoredOutputBytes = readLimit(
      config.maxStoredOutputBytes,
      defaultMaxStoredOutputBytes,
      "maxStoredOutputBytes",
    );
    if (config.isolation !== undefined && !isIsolation(config.isolation)) {
      throw new TollgateError("TG_INVALID_CONFIG", "isolation must be inline, thread or process.", {
        option: "isolation",
      });
    }
    this.isolation = config.isolation ?? "inline";
    this.config = config;
    this.clock = options.clock ?? systemClock;
    for (const tool of config.tools) {
      validateToolDefinition(tool);
      if (this.toolsByName.has(tool.name)) {
        throw new TollgateError("TG_DUPLICATE_TOOL_NAME", `Two tools are named "${tool.name}".`, {
          toolName: tool.name,
        });
      }
      this.toolsByName.set(tool.name, tool);
    }
  }

  get(name: string): TAnyToolDef | undefined {
    return this.toolsByName.get(name);
  }

  has(name: string): boolean {
    return this.toolsByName.has(name);
  }

  /** In registration order. */
  list(): TAnyToolDef[] {
    return [...this.toolsByName.values()];
  }

  /** A registry for one run with `tools` joined; this one is unchanged. A name already here is an error. */
  withAdditional(tools: TAnyToolDef[]): ToolRegistry {
    for (const tool of tools) {
      if (this.has(tool?.name)) {
        throw new TollgateError(
          "TG_TOOL_NAME_CLASH",
          `The additional tool "${tool.name}" has the name of a tool already offered.`,
          { toolName: tool.name },
        );
      }
    }
    return new ToolRegistry({ ...this.config, tools: [...this.list(), ...tools] }, { clock: this.clock });
  }

  /**
   * The tool's own limits (design decision D60: a tool's own timeout and output cap) and isolation, else the
   * registry's; the registry's for an unknown name.
   */
  limitsOf(name: string): IToolLimits {
    const tool = this.get(name);
    return {
      timeoutMs: tool?.timeoutMs ?? this.toolTimeoutMs,
      maxOutputChars: tool?.maxOutputChars ?? this.maxOutputChars,
      maxStoredOutputBytes: tool?.maxStoredOutputBytes ?? this.maxStoredOutputBytes,
      isolation: tool?.isolation ?? this.isolation,
    };
  }

  /** Parses an input with the tool's schema. Async: schemas may have async refinements. Never throws. */
  async parseInput(name: string, rawInput: unknown): Promise<TToolInputParse> {
    const tool = this.get(name);
    return tool === undefined
      ? { ok: false, failure: unknownToolFailure(name), issues: [] }
      : parseToolInput(tool, rawInput);
  }

  /** Parses the model's JSON arguments, then the input. An empty string is `{}` (a call without arguments). */
  async parseArguments(name: string, argumentsJson: string): Promise<TToolInputParse> {
    if (!this.has(name)) {
      return { ok: false, failure: unknownToolFailure(name), issues: [] };
    }
    if (jsonTextNestsDeeperThan(argumentsJson, maxArgumentsDepth)) {
      const detail = `nested deeper than ${maxArgumentsDepth} levels`;
      const issues = [{ path: "", message: detail }];
      return { ok: false, failure: invalidArgumentsFailure(name, detail), issues };
    }
    let rawInput: unknown;
    try {
      rawInput = argumentsJson.trim() === "" ? {} : JSON.parse(argumentsJson);
    } catch (error) {
      // JSON.parse throws only SyntaxError; its message names the position, and the text is the model's own.
      const detail = (error as SyntaxError).message;
      const issues = [{ path: "", message: `not valid JSON: ${detail}` }];
      return { ok: false, failure: invalidArgumentsFailure(name, detail), issues };
    }
    return this.parseInput(name, rawInput);
  }

  /** Parses and runs one call. Never throws: unknown tools, wrong input and every error become results. */
  async execute(request: IToolExecutionRequest): Promise<IToolExecution> {
    const reportError = (error: unknown, modelText: string): void => {
      const report = { ...describeCall(request), error, modelText };
      this.reportToolError(report, request.onError);
    };
    const tool = this.get(request.toolName);
    if (tool === undefined) {
      return failedExecution(unknownToolFailure(request.toolName), request.input, 0);
    }
    // Schema before anything: a rejected input never reaches execute. Not awaited when the parse answered at
    // once: nothing else runs before the tool starts (a worker's next fetch waits for the first await).
    const parsing = parseToolInput(tool, request.input);
    const parsed = parsing instanceof Promise ? await parsing : parsing;
    if (!parsed.ok) {
      if ("error" in parsed) {
        reportError(parsed.error, parsed.failure.text);
      }
      return failedExecution(parsed.failure, request.input, 0);
    }
    const limits = this.limitsOf(tool.name);
    return runParsedCall({ tool, input: parsed.input, request, limits, clock: this.clock, reportError });
  }

  /** onToolError must not break a call: what it throws or rejects with is dropped. */
  private reportToolError(report: IToolErrorReport, callerHook?: (report: IToolErrorReport) => void): void {
    for (const hook of [this.config.onToolError, callerHook]) {
      if (hook === undefined) continue;
      try {
        Promise.resolve(hook(report)).catch(() => {});
      } catch {
        // A synchronous throw is dropped for the same reason.
      }
    }
  }
}

/** Answered at once when the schema's parse is (see parseWithSchema), else a promise. */
function parseToolInput(tool: TAnyToolDef, rawInput: unknown): TToolInputParse | Promise<TToolInputParse> {
  const parsed = parseWithSchema(tool.inputSchema, rawInput);
  return parsed instanceof Promise ? parsed.then(toolInputParseOf) : toolInputParseOf(parsed);
}

function toolInputParseOf(parsed: TSchemaParseResult): TToolInputParse {
  if (parsed.ok) {
    return parsed;
  }
  if ("error" in parsed) {
    return { ok: false, failure: unexpectedFailure(), issues: [], error: parsed.error };
  }
  return { ok: false, failure: invalidInputFailure(parsed.issues), issues: parsed.issues };
}

function describeCall(request: IToolExecutionRequest): Omit<IToolErrorReport, "error" | "modelText"> {
  const { toolName, callId, runId, threadId, userContext } = request;
  return { toolName, callId, runId, threadId, userContext };
}

function readLimit(value: number | undefined, defaultValue: number, option: string): number {
  if (value === undefined) {
    return defaultValue;
  }
  if (!isPositiveLimit(value)) {
    throw new TollgateError(
      "TG_INVALID_CONFIG",
      `${option} must be a positive integer of at most ${maxTimerDelayMs}, got ${String(value)}.`,
      { option },
    );
  }
  return value;
}
