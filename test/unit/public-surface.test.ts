import { readFileSync } from "node:fs";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { GatewayClient, ITollgateWorker } from "../../src/index.js";
import * as tollgate from "../../src/index.js";
import { testGateway } from "../fixtures/test-gateway.js";
import { clientInternals } from "../helpers/internals.js";
import { testRedisOptions } from "../helpers/redis-url.js";
import { uniquePrefix } from "../helpers/test-prefix.js";

/*
 * The root module's exports, pinned: adding or removing one is a decision, made here and in
 * docs/LIBRARY.md's "Public exports" together. Values are read from the module; types, which vanish at run time, from the
 * export lists of src/index.ts.
 */

const values = [
  "EToolCallVerdict",
  "GatewayClient",
  "LLMClient",
  "StaticTokens",
  "TollgateError",
  "apiRoles",
  "buildApi",
  "createJwtVerifier",
  "createLogger",
  "defineGateway",
  "defineTool",
  "dynaError",
  "errorCatalogue",
  "httpTool",
  "isGateway",
  "jsonSchemaInput",
  "loadApiTokens",
  "parseApiTokens",
  "parseEnv",
  "parseRuntimeOptions",
  "runtimeOptionsFromEnv",
  "startApi",
  "startMetricsServer",
  "startScriptedModel",
  "startTracingFromEnv",
  "startWorker",
  "toolCallOutcomes",
  "traceLogFields",
  "watchTokensFile",
];

const types = [
  "IApiOptions",
  "IApiPrincipal",
  "IApiToken",
  "IApproval",
  "IApprovalFilter",
  "IApprovalRecordOnResult",
  "IApproveInput",
  "IApproverIdentity",
  "IDecisionAccess",
  "IChatToolCall",
  "ICreateLoggerOptions",
  "IDeletedThread",
  "IDynaError",
  "IEnvTracing",
  "IEnqueuedRun",
  "IErrorConfig",
  "IFieldIssue",
  "IGateway",
  "IApprovalEventsOptions",
  "IGatewayAskInput",
  "IGatewayClientOptions",
  "IGatewayDefinition",
  "IGatewayResponse",
  "IModelReplyRecord",
  "IGatewayRunInput",
  "IHttpToolDefinition",
  "IHttpToolEndpoint",
  "IHttpToolOptions",
  "IOutputRequest",
  "IJwtOptions",
  "IJwtVerifier",
  "ILLMClientConfig",
  "ILLMClientOptions",
  "ILiveness",
  "IMetricsServer",
  "IMetricsServerOptions",
  "IModelRequestFinishedEvent",
  "IReadiness",
  "IReadinessProbe",
  "IRejectInput",
  "IRunEvent",
  "IRunView",
  "IRunningApi",
  "ITracingOptions",
  "IScriptedModel",
  "IScriptedModelOptions",
  "IStartApiOptions",
  "IStartWorkerOptions",
  "ITokenReloader",
  "ITokenUsage",
  "ITollgateErrorDetails",
  "ITollgateWorker",
  "IToolApprovalProfile",
  "IToolDef",
  "IJsonSchemaToolInput",
  "TToolInputSchema",
  "IToolErrorReport",
  "IToolExecuteArgs",
  "IToolPolicyArgs",
  "IToolPolicyConfig",
  "IToolResultPart",
  "IToolVisibilityArgs",
  "IUserContext",
  "Logger",
  "TAnyToolDef",
  "TApiRole",
  "TApprovalDecision",
  "TApprovalEvent",
  "TApprovalEventType",
  "TApprovalStatus",
  "TCancelReason",
  "TChatMessage",
  "TClientAskInput",
  "TClientRunInput",
  "TEnv",
  "TErrorCode",
  "TErrorEnvelope",
  "TGatewaySettings",
  "TGatewaySettingsInput",
  "TGatewayStreamEvent",
  "THttpToolCall",
  "THttpToolErrorBody",
  "TOutputOf",
  "TOutputSchemaInput",
  "TRunEventType",
  "TRunStatus",
  "TRunStopReason",
  "TRuntimeOptions",
  "TRuntimeOptionsInput",
  "TStoredApprovalEvent",
  "TTerminalRunStatus",
  "TToolCallOutcome",
  "TToolCallPolicyResult",
  "TToolEndsRunPredicate",
  "TToolNameOf",
  "TToolPolicyKind",
  "TToolPolicyPredicate",
  "TToolVisibleWhenHandler",
];

const source = readFileSync(new URL("../../src/index.ts", import.meta.url), "utf8");

/** Every name in the `export { ... } from` lists of the source, with `type ` markers removed. */
function exportedNamesIn(text: string): string[] {
  return [...text.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((match) =>
    (match[1] ?? "")
      .split(",")
      .map((name) => name.trim().replace(/^type /, ""))
      .filter((name) => name !== ""),
  );
}

const byName = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);

describe("the root module exports a deliberate list of names", () => {
  it("its values are the pinned ones", () => {
    expect(Object.keys(tollgate).sort(byName)).toEqual([...values].sort(byName));
  });

  it("its names, types included, are the pinned ones", () => {
    expect(exportedNamesIn(source).sort(byName)).toEqual([...values, ...types].sort(byName));
  });

  it("re-exports nothing wholesale", () => {
    expect(source).not.toMatch(/^export \*/m);
  });

  it("keeps processor factories and internals out", () => {
    for (const internal of [
      "createRunProcessor",
      "createToolProcessor",
      "createApprovalProcessor",
      "ToolRegistry",
    ]) {
      expect(Object.keys(tollgate)).not.toContain(internal);
    }
  });
});

/** What a GatewayClient hid in the third round: its runtime is internal, reached through a narrow port. */
const hiddenClientMembers = ["runtime", "partitions", "runtimeOf", "runtimeOfThread", "metricsSources"];

describe("the public handles hide the runtime", () => {
  it("GatewayClient has no runtime, partitions or runtimeOf, in its type or on the object", async () => {
    expectTypeOf<GatewayClient>().not.toHaveProperty("runtime");
    expectTypeOf<GatewayClient>().not.toHaveProperty("partitions");
    expectTypeOf<GatewayClient>().not.toHaveProperty("runtimeOf");
    expectTypeOf<GatewayClient>().not.toHaveProperty("runtimeOfThread");
    expectTypeOf<GatewayClient>().not.toHaveProperty("metricsSources");
    const client = new tollgate.GatewayClient({
      gateway: testGateway,
      runtime: { ...testRedisOptions, prefix: uniquePrefix("surface") },
    });
    try {
      const reachable = new Set<string>([
        ...Object.keys(client),
        ...Object.getOwnPropertyNames(tollgate.GatewayClient.prototype),
      ]);
      for (const member of hiddenClientMembers) expect(reachable).not.toContain(member);
      expect(Object.getOwnPropertySymbols(client)).toEqual([]);
      // Tests (and only they, with the API's port) still reach it.
      expect(clientInternals(client).runtime.options.prefix).toBe(
        clientInternals(client).partitions.options.prefix,
      );
    } finally {
      await client.close();
    }
  });

  it("a worker's handle is the operator's: names, readiness and close, no BullMQ workers", () => {
    expectTypeOf<keyof ITollgateWorker>().toEqualTypeOf<"queues" | "partitions" | "readiness" | "close">();
    expectTypeOf<ITollgateWorker["partitions"]>().toEqualTypeOf<readonly string[]>();
    expectTypeOf<ITollgateWorker["readiness"]>().toEqualTypeOf<tollgate.IReadinessProbe>();
  });
});
