import type { TEnv } from "../../config/env.js";
import type { ILLMClientConfig } from "../../model/index.js";
import { CliError } from "../cli-errors.js";

/**
 * The model endpoint from the environment: OpenAI (or OPENAI_BASE_URL) with OPENAI_API_KEY; without a
 * key, OPENAI_BASE_URL alone (a local server, `tollgate model-server`). With neither, the worker could
 * only fail every run, so it refuses to start, unless the gateway's `models.default` names its endpoint
 * (`baseURL`) or its key's variable (`apiKeyEnv`) itself: the environment then overrides what it sets.
 */
export function modelFromEnv(
  env: TEnv,
  configuredDefault?: { baseURL?: string | undefined; apiKeyEnv?: string | undefined },
): Partial<ILLMClientConfig> {
  const common: Partial<ILLMClientConfig> = {
    ...(env.TOLLGATE_MODEL !== undefined ? { model: env.TOLLGATE_MODEL } : {}),
    ...(env.TOLLGATE_MODEL_TIMEOUT_MS !== undefined
      ? { requestTimeoutMs: env.TOLLGATE_MODEL_TIMEOUT_MS }
      : {}),
    ...(env.TOLLGATE_MODEL_MAX_RETRIES !== undefined ? { maxRetries: env.TOLLGATE_MODEL_MAX_RETRIES } : {}),
    ...(env.TOLLGATE_MODEL_STREAMING !== undefined ? { streaming: env.TOLLGATE_MODEL_STREAMING } : {}),
    ...(env.TOLLGATE_MODEL_STREAM_IDLE_TIMEOUT_MS !== undefined
      ? { streamIdleTimeoutMs: env.TOLLGATE_MODEL_STREAM_IDLE_TIMEOUT_MS }
      : {}),
    ...(env.OPENAI_BASE_URL !== undefined ? { baseURL: env.OPENAI_BASE_URL } : {}),
  };
  if (env.OPENAI_API_KEY !== undefined) return { ...common, apiKey: env.OPENAI_API_KEY };
  if (env.OPENAI_BASE_URL !== undefined) return common;
  if (configuredDefault?.baseURL !== undefined || configuredDefault?.apiKeyEnv !== undefined) return common;
  throw new CliError(
    "no model: set OPENAI_API_KEY or OPENAI_BASE_URL (for a keyless try, run `tollgate model-server` " +
      "and set OPENAI_BASE_URL=http://127.0.0.1:4010/v1)",
  );
}
