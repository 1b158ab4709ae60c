import type { Logger } from "pino";
import type { TRejectOption } from "../contracts/index.js";
import type { IRunTools } from "../engine/index.js";
import { rejectOptionsOf, runToolRegistry } from "../gateway/index.js";
import type { McpPool } from "../mcp/index.js";
import type { ModelRouter } from "../model/index.js";
import type { TollgateMetrics } from "../observability/index.js";
import type { IOutputSupport } from "../output/index.js";
import type { CancelBus } from "../runtime/cancel-bus.js";
import type { ModelPauseWatch } from "../runtime/model-pause-watch.js";
import { noMcpConnection, pinnedMcpTools } from "../runtime/pinned-tools.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import type { LocalToolCompletions } from "./local-tool-completions.js";
import type { TextDeltaFlushClock } from "./text-delta-flush-clock.js";

/** What every processor of a worker process shares. */
export interface IWorkerContext {
  runtime: ITollgateRuntime;
  /** The gateway's named models behind their one retry loop (fallbacks, cooldowns, pauses). */
  models: ModelRouter;
  cancelBus: CancelBus;
  /** The fleet's model pauses, kept current by their announcements (no read per model call). */
  modelPauses: ModelPauseWatch;
  logger: Logger;
  /** Paces every streamed run's text writes together (text-delta-flush-clock.ts). */
  textDeltaClock: TextDeltaFlushClock;
  metrics?: TollgateMetrics | undefined;
  /** The tool jobs this process completed, when it serves the tools queue (local-tool-completions.ts). */
  localTools?: LocalToolCompletions | undefined;
  /** The worker's connections to the gateway's MCP servers; absent when it mounts none. */
  mcp?: McpPool | undefined;
}

/** What names a run's tools: its selection and its pinned MCP list. */
interface IRunToolRequest {
  tools?: string[] | undefined;
  additionalTools?: string[] | undefined;
  toolListHash?: string | undefined;
}

/**
 * The run's tools and the gateway's policy, as the engine needs them: the gateway's tools for the run's
 * selection, joined by the MCP tools the run pinned that their servers still list (a tool that
 * disappeared is left out, so its calls settle as unknown; a server that is down keeps its tools, whose
 * calls then fail as the transport does). A run whose `tools` narrows its tools gets the MCP tools it names.
 */
export async function runToolsOf(context: IWorkerContext, request: IRunToolRequest): Promise<IRunTools> {
  return runToolsNow(context, request) ?? runToolsWithPinned(context, request);
}

/**
 * The run's tools when it pinned no MCP list or the gateway mounts no MCP server: nothing to read, so no
 * promise (a tool job awaits nothing before its tool starts). Undefined when the pinned list must be read.
 */
export function runToolsNow(context: IWorkerContext, request: IRunToolRequest): IRunTools | undefined {
  const { gateway } = context.runtime;
  if (request.toolListHash !== undefined && Object.keys(gateway.settings.mcpServers).length > 0)
    return undefined;
  return { registry: runToolRegistry(gateway, request), policy: gateway.policy };
}

async function runToolsWithPinned(context: IWorkerContext, request: IRunToolRequest): Promise<IRunTools> {
  const registry = runToolRegistry(context.runtime.gateway, request);
  const policy = context.runtime.gateway.policy;
  const pool = context.mcp;
  const pinned = await pinnedMcpTools(context.runtime, request.toolListHash, pool?.call ?? noMcpConnection);
  const chosen = request.tools !== undefined ? new Set(request.tools) : undefined;
  const available = pinned.flatMap(({ entry, tool }) =>
    pool?.stillListed(entry) && (chosen === undefined || chosen.has(tool.name)) ? [tool] : [],
  );
  return { registry: available.length === 0 ? registry : registry.withAdditional(available), policy };
}

/** A parked call's TTL: the tool's own (an MCP tool's from the gateway's settings), else the gateway's. */
export function approvalTtlMsOf(context: IWorkerContext, toolName: string, tools?: IRunTools): number {
  const tool = tools?.registry.get(toolName) ?? context.runtime.gateway.catalogue.get(toolName);
  return tool?.approvalTtlMs ?? context.runtime.gateway.settings.approvalTtlMs;
}

/** A parked call's reject options: the tool's own (an MCP tool's too), else the gateway's. */
export function runRejectOptionsOf(
  context: IWorkerContext,
  toolName: string,
  tools: IRunTools,
): TRejectOption[] | undefined {
  const own = tools.registry.get(toolName)?.rejectOptions;
  if (own === undefined || own.length === 0) return rejectOptionsOf(context.runtime.gateway, toolName);
  return own.map((option) => ({ ...option }));
}

/** What a named model supports of structured answers; a model the gateway does not write (`default`): all. */
export function outputSupportOf(context: IWorkerContext, modelName: string): IOutputSupport {
  const settings = context.runtime.gateway.settings.models;
  return Object.hasOwn(settings, modelName) ? (settings[modelName]?.supports ?? allSupported) : allSupported;
}

const allSupported: IOutputSupport = { jsonSchema: true, strictSchemas: true };
