import { TollgateError } from "../errors/index.js";
import type { TGatewaySettings } from "../gateway/gateway-options.js";
import {
  DEFAULT_MODEL,
  namedModelSchema,
  type TModelSupports,
  type TNamedModelSettings,
} from "../gateway/index.js";
import type { ILLMClientConfig } from "../model/index.js";

/** A named model with everything resolved: its endpoint's configuration (key read) and its routing. */
export interface IResolvedNamedModel {
  name: string;
  api: TNamedModelSettings["api"];
  /** For the transport; `maxRetries` is left to the router. */
  endpoint: Omit<ILLMClientConfig, "maxRetries" | "onRequestFinished"> & {
    requestTimeoutMs: number;
    streamIdleTimeoutMs: number;
  };
  maxRetries: number;
  cooldownMs: number;
  fallbacks: readonly string[];
  supports: TModelSupports;
}

/**
 * The gateway's named models as a worker uses them. `default` is the gateway's `models.default` (or
 * nothing), then the gateway's `model.name` and `model.temperature`, then `overrides` on top: what the
 * environment says (OPENAI_BASE_URL, OPENAI_API_KEY, TOLLGATE_MODEL, ...), as before named models. Keys
 * are read from `env` by the variable each model names; a named variable that is unset is TG_INVALID_CONFIG.
 */
export function resolveNamedModels(
  settings: Pick<TGatewaySettings, "models" | "model">,
  overrides: Partial<ILLMClientConfig> = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): IResolvedNamedModel[] {
  return namedModelsOf(settings, overrides, (name, model) => apiKeyOf(name, model, env));
}

/** A named model as a worker's start-up log names it: the endpoint's model, where, and its fallbacks. */
export interface INamedModelSummary {
  model: string;
  /** The endpoint's base URL; "OpenAI" for OpenAI's own. */
  endpoint: string;
  fallbacks: string[];
}

/**
 * Each named model as the worker will call it (`default` first), resolved as resolveNamedModels does but
 * without reading any key: what a start-up log line says, before anything is connected.
 */
export function describeNamedModels(
  settings: Pick<TGatewaySettings, "models" | "model">,
  overrides: Partial<ILLMClientConfig> = {},
): Record<string, INamedModelSummary> {
  const models = namedModelsOf(settings, overrides, () => undefined);
  return Object.fromEntries(
    models.map((model) => [
      model.name,
      {
        model: model.endpoint.model,
        endpoint: model.endpoint.baseURL ?? "OpenAI",
        fallbacks: [...model.fallbacks],
      },
    ]),
  );
}

function namedModelsOf(
  settings: Pick<TGatewaySettings, "models" | "model">,
  overrides: Partial<ILLMClientConfig>,
  keyOf: (name: string, model: TNamedModelSettings) => string | undefined,
): IResolvedNamedModel[] {
  const configured = settings.models;
  const names = [DEFAULT_MODEL, ...Object.keys(configured).filter((name) => name !== DEFAULT_MODEL)];
  return names.map((name) => {
    const model = configured[name] ?? defaultModelSettings();
    const isDefault = name === DEFAULT_MODEL;
    const apiKey = isDefault && overrides.apiKey !== undefined ? overrides.apiKey : keyOf(name, model);
    const baseURL = (isDefault ? overrides.baseURL : undefined) ?? model.baseURL;
    const temperature = isDefault
      ? (overrides.temperature ?? model.temperature ?? settings.model.temperature)
      : model.temperature;
    return {
      name,
      api: model.api,
      endpoint: {
        model:
          (isDefault ? overrides.model : undefined) ??
          model.model ??
          (isDefault ? settings.model.name : name),
        requestTimeoutMs: (isDefault ? overrides.requestTimeoutMs : undefined) ?? model.requestTimeoutMs,
        streamIdleTimeoutMs:
          (isDefault ? overrides.streamIdleTimeoutMs : undefined) ?? model.streamIdleTimeoutMs,
        ...(baseURL !== undefined ? { baseURL } : {}),
        ...(apiKey !== undefined ? { apiKey } : {}),
        ...(temperature !== undefined ? { temperature } : {}),
        // TOLLGATE_MODEL_STREAMING=false turns it off for the default model; `supports` for each.
        streaming: (isDefault ? overrides.streaming : undefined) ?? model.supports.streaming,
        // A tool whose schema fits is sent strict where the endpoint honours it.
        strictSchemas: model.supports.strictSchemas,
      },
      maxRetries: (isDefault ? overrides.maxRetries : undefined) ?? model.maxRetries,
      cooldownMs: model.cooldownMs,
      fallbacks: model.fallbacks,
      supports: model.supports,
    };
  });
}

/** The defaults of a model the gateway does not write (`default`, configured by the environment). */
function defaultModelSettings(): TNamedModelSettings {
  return namedModelSchema.parse({});
}

function apiKeyOf(
  name: string,
  model: TNamedModelSettings,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (model.apiKeyEnv === undefined) return undefined;
  const key = env[model.apiKeyEnv];
  if (key === undefined || key === "") {
    throw new TollgateError(
      "TG_INVALID_CONFIG",
      `The model "${name}" reads its API key from ${model.apiKeyEnv}, which is not set.`,
      { issues: [{ path: `models.${name}.apiKeyEnv`, message: `${model.apiKeyEnv} is not set` }] },
    );
  }
  return key;
}
