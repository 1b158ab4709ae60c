import type { TToolCallOutcome } from "../contracts/result.js";
import { UNKNOWN_TOOL_LABEL } from "./constants.js";

/** How one model API request ended. */
export type TModelRequestOutcome = "ok" | "error" | "timeout" | "cancelled";

/** The kinds of tokens `tollgate_model_tokens_total` counts. */
export type TTokenKind = "prompt" | "completion";

/**
 * The tool label of a call. A model can invent any tool name, so a name no tool has is folded into
 * one label value: otherwise a chatty model could create unbounded series.
 */
export function toolLabel(tool: string, outcome: TToolCallOutcome): string {
  return outcome === "unknown_tool" ? UNKNOWN_TOOL_LABEL : tool;
}

/**
 * The status label of a failed model request: the HTTP status when the server answered (only real
 * status codes, so a bogus value cannot add series), else what happened instead.
 */
export function modelErrorStatusLabel(outcome: TModelRequestOutcome, status: number | undefined): string {
  if (status !== undefined && Number.isInteger(status) && status >= 100 && status <= 599) {
    return String(status);
  }
  return outcome === "timeout" ? "timeout" : "network";
}

/** A value that is safe to observe: prom-client throws on NaN and a counter cannot go down. */
export function observableValue(value: number | undefined): number | undefined {
  if (value === undefined || !Number.isFinite(value)) {
    return undefined;
  }
  return Math.max(0, value);
}

/** The label of every tenant that is not named in the configuration. */
export const OTHER_TENANT_LABEL = "other";

/**
 * The tenant label: a tenant named in the configuration (`TOLLGATE_TENANT_LIMITS`, and `default`) keeps
 * its name; any other is "other". Tenants come from requests, so a label taken from them unchecked would
 * let callers create unbounded series.
 */
export function tenantLabel(tenant: string, configuredTenants: ReadonlySet<string>): string {
  return configuredTenants.has(tenant) ? tenant : OTHER_TENANT_LABEL;
}
