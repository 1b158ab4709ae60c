import { randomBytes } from "node:crypto";
import { startApi } from "../../api/index.js";
import type { TEnv } from "../../config/env.js";
import type { ILLMClientConfig } from "../../model/index.js";
import { startScriptedModel } from "../../model/scripted/index.js";
import type { Logger } from "../../observability/index.js";
import { GatewayClient } from "../../producer/index.js";
import { startWorker } from "../../workers/index.js";
import { loadGateway } from "../load-gateway.js";
import { modelFromEnv } from "../serve/model-from-env.js";
import { withDemoMcpServer } from "./demo-mcp-mount.js";

/** Who approves and rejects in the demo: the subject of its reviewer token, recorded on every decision. */
export const DEMO_APPROVER = "lead@support-desk.example";

/**
 * Who submits the demo's runs: the support desk's backend. A subject of its own, since the requester of
 * a run never decides its approvals.
 */
export const DEMO_REQUESTER = "support-desk-backend";

export interface IDemoStack {
  apiUrl: string;
  /** The generated token that submits and follows the demo's runs (runs:write, runs:read). */
  token: string;
  /** The generated token of the reviewer who decides the parked calls (approvals:read, approvals:decide). */
  reviewerToken: string;
  /** "scripted": the built-in scripted model; "real": OPENAI_API_KEY's model. */
  modelKind: "scripted" | "real";
  modelDescription: string;
  close(): Promise<void>;
}

export interface IDemoStackOptions {
  env: TEnv;
  redisUrl: string;
  prefix: string;
  gatewayPath: string;
  cwd: string;
  logger: Logger;
}

/** The whole system in this process: the model, a worker and the HTTP API, on one queue prefix. */
export async function startDemoStack(options: IDemoStackOptions): Promise<IDemoStack> {
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    // Last started, first stopped: the API before the worker before the model it calls.
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  };
  try {
    // The demo mounts an MCP server of its own, so one of its runs calls a tool served over MCP.
    const gateway = withDemoMcpServer(await loadGateway(options.gatewayPath, options.cwd));
    const model = await demoModel(options.env, closers);
    const runtime = { redisUrl: options.redisUrl, prefix: options.prefix, shutdownTimeoutMs: 2_000 };
    const worker = await startWorker({
      gateway,
      runtime,
      model: model.config,
      logger: options.logger,
      handleSignals: false,
    });
    closers.push(() => worker.close());
    const client = new GatewayClient({ gateway, runtime });
    closers.push(() => client.close());
    const token = randomBytes(24).toString("base64url");
    const reviewerToken = randomBytes(24).toString("base64url");
    const api = await startApi({
      client,
      tokens: [
        { token, subject: DEMO_REQUESTER, roles: ["runs:write", "runs:read"] },
        { token: reviewerToken, subject: DEMO_APPROVER, roles: ["approvals:read", "approvals:decide"] },
      ],
      port: 0,
      host: "127.0.0.1",
      logger: options.logger,
    });
    closers.push(() => api.close());
    return {
      apiUrl: api.url,
      token,
      reviewerToken,
      modelKind: model.kind,
      modelDescription:
        model.kind === "scripted"
          ? `the built-in scripted model at ${model.config.baseURL} (set OPENAI_API_KEY to use a real one)`
          : `${options.env.TOLLGATE_MODEL ?? gateway.settings.model.name} at ${options.env.OPENAI_BASE_URL ?? "OpenAI"}`,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function demoModel(
  env: TEnv,
  closers: Array<() => Promise<void>>,
): Promise<{ kind: "scripted" | "real"; config: Partial<ILLMClientConfig> }> {
  if (env.OPENAI_API_KEY !== undefined) return { kind: "real", config: modelFromEnv(env) };
  const scripted = await startScriptedModel({ port: 0 });
  closers.push(() => scripted.close());
  return { kind: "scripted", config: { baseURL: scripted.url, maxRetries: 0 } };
}
