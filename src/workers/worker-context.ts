import type { Logger } from "pino";
import type { IRunTools } from "../engine/index.js";
import { runToolRegistry } from "../gateway/index.js";
import type { ModelRouter } from "../model/index.js";
import type { TollgateMetrics } from "../observability/index.js";
import type { IOutputSupport } from "../output/index.js";
import type { CancelBus } from "../runtime/cancel-bus.js";
import type { ModelPauseWatch } from "../runtime/model-pause-watch.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";

/** What every processor of a worker process shares. */
export interface IWorkerContext {
  runtime: ITollgateRuntime;
  /** The gateway's named models behind their one retry loop (fallbacks, cooldowns, pauses). */
  models: ModelRouter;
  cancelBus: CancelBus;
  /** The fleet's model pauses, kept current by their announcements (no read per model call). */
  modelPauses: ModelPauseWatch;
  logger: Logger;
  metrics?: TollgateMetrics | undefined;
}

/** The run's tools and the gateway's policy, as the engine needs them. */
export function runToolsOf(
  context: IWorkerContext,
  request: { tools?: string[] | undefined; additionalTools?: string[] | undefined },
): IRunTools {
  return {
    registry: runToolRegistry(context.runtime.gateway, request),
    policy: context.runtime.gateway.policy,
  };
}

/** A parked call's TTL: the tool's own, else the gateway's. */
export function approvalTtlMsOf(context: IWorkerContext, toolName: string): number {
  const tool = context.runtime.gateway.catalogue.get(toolName);
  return tool?.approvalTtlMs ?? context.runtime.gateway.settings.approvalTtlMs;
}

/** What a named model supports of structured answers; a model the gateway does not write (`default`): all. */
export function outputSupportOf(context: IWorkerContext, modelName: string): IOutputSupport {
  const settings = context.runtime.gateway.settings.models;
  return Object.hasOwn(settings, modelName) ? (settings[modelName]?.supports ?? allSupported) : allSupported;
}

const allSupported: IOutputSupport = { jsonSchema: true, strictSchemas: true };
