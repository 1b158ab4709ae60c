import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveApiSettings } from "../../../src/api/api-options.js";
import { parseRuntimeOptions } from "../../../src/config/runtime-options.js";
import { defineTool } from "../../../src/contracts/index.js";
import type { IFieldIssue, TollgateError } from "../../../src/errors/index.js";
import { defineGateway, type IGatewayDefinition } from "../../../src/gateway/index.js";
import { resolveLLMClientConfig } from "../../../src/model/llm-client-config.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { startWorker } from "../../../src/workers/start-worker.js";
import { refusal } from "../../helpers/refusal.js";
import { namedTool, referenceExtraTools, referenceTools } from "./reference-gateway.js";

/**
 * A misspelt key used to be dropped without a word (`approvalTTLMs: 5` left the default TTL in force):
 * every configuration object now refuses an unknown key at start-up, naming its path and the nearest
 * known key when one is close. Each row misspells one key of one kind of object.
 */

const secret = Buffer.alloc(32, 7).toString("base64");
const target = { name: "ops", url: "https://hooks.example/ops", secret };
const refund = defineTool({
  name: "refund",
  description: "Refunds an order.",
  inputSchema: z.object({ orderId: z.string() }),
  execute: async () => ({ ok: true }),
});

/** A definition written in JavaScript, or spread from an object: what the compiler does not check. */
function untyped(definition: Record<string, unknown>): IGatewayDefinition {
  return { tools: referenceTools, extraTools: referenceExtraTools, ...definition } as IGatewayDefinition;
}

/** The TollgateError `act` throws (synchronously or not). */
function thrown(act: () => unknown): Promise<TollgateError> {
  return refusal(Promise.resolve().then(act));
}

/** The issue naming `path`, with its message. */
function issueAt(error: TollgateError, path: string): IFieldIssue | undefined {
  return error.details?.issues?.find((issue) => issue.path === path);
}

describe("an unknown key in a gateway definition fails at start-up, naming its path and the nearest key", () => {
  it.each<[string, Record<string, unknown>, string, string | undefined]>([
    ["a setting (the issue's example)", { approvalTTLMs: 5 }, "approvalTTLMs", "approvalTtlMs"],
    ["a setting missing a letter", { maxStep: 4 }, "maxStep", "maxSteps"],
    ["a definition key that is not a setting", { extraTool: [] }, "extraTool", "extraTools"],
    ["the model", { model: { nmae: "gpt-4o" } }, "model.nmae", "name"],
    [
      "a price",
      { prices: { "gpt-4o": { promptPerMilion: 1, completionPerMillion: 2 } } },
      "prices.gpt-4o.promptPerMilion",
      "promptPerMillion",
    ],
    [
      "the approvals",
      { approvals: { requesterMayAprove: true } },
      "approvals.requesterMayAprove",
      "requesterMayApprove",
    ],
    [
      "an approver rule",
      { approvals: { rules: [{ name: "two", quorom: 2, quorum: 2 }] } },
      "approvals.rules.0.quorom",
      "quorum",
    ],
    [
      "a rule's approvers",
      { approvals: { rules: [{ name: "leads", approvers: { role: ["lead"], roles: ["lead"] } }] } },
      "approvals.rules.0.approvers.role",
      "roles",
    ],
    [
      "the notifications",
      { notifications: { expiringSoonMS: 5 } },
      "notifications.expiringSoonMS",
      "expiringSoonMs",
    ],
    [
      "a notification target",
      { notifications: { targets: [{ ...target, event: ["approval-requested"] }] } },
      "notifications.targets.0.event",
      "events",
    ],
    [
      "a target's links",
      {
        notifications: {
          targets: [
            {
              ...target,
              links: { approver: { subject: "a" }, consoleUrl: "https://t.example/", ttlMS: 60_000 },
            },
          ],
        },
      },
      "notifications.targets.0.links.ttlMS",
      "ttlMs",
    ],
    [
      "an escalation",
      { notifications: { targets: [target], escalations: [{ afterMS: 5, afterMs: 5, target: "ops" }] } },
      "notifications.escalations.0.afterMS",
      "afterMs",
    ],
    [
      "the delivery",
      { notifications: { delivery: { attempt: 3 } } },
      "notifications.delivery.attempt",
      "attempts",
    ],
    ["a tool (by its name)", { tools: [{ ...refund, timeoutMS: 5 }] }, "tools.refund.timeoutMS", "timeoutMs"],
    [
      "an extra tool",
      { extraTools: [{ ...namedTool("export_ledger"), approvalTTL: 5 }] },
      "extraTools.export_ledger.approvalTTL",
      "approvalTtlMs",
    ],
    ["the policy", { policy: { require: {} } }, "policy.require", "requires"],
    [
      "a policy profile",
      { policy: { profiles: { cautious: { approval: ["lookup_order"] } } } },
      "policy.profiles.cautious.approval",
      "approvals",
    ],
    ["a key close to none", { zebra: 1 }, "zebra", undefined],
  ])("%s", async (_kind, definition, path, suggestion) => {
    const error = await thrown(() => defineGateway(untyped(definition)));
    expect(error.code).toBe("TG_INVALID_GATEWAY");
    const issue = issueAt(error, path);
    expect(issue, JSON.stringify(error.details?.issues)).toBeDefined();
    expect(issue?.message).toBe(
      suggestion === undefined ? "unknown key" : `unknown key (did you mean "${suggestion}"?)`,
    );
    expect(error.message).toContain(path);
  });

  it("names every unknown key of one definition at once", async () => {
    const error = await thrown(() =>
      defineGateway(
        untyped({ approvalTTLMs: 5, tools: [{ ...refund, timeoutMS: 5 }], model: { nmae: "m" } }),
      ),
    );
    expect(error.details?.issues?.map((issue) => issue.path).sort()).toEqual([
      "approvalTTLMs",
      "model.nmae",
      "tools.refund.timeoutMS",
    ]);
  });

  it("keeps the open maps open: tool input schemas, prices per model, requires per tool", () => {
    const gateway = defineGateway({
      tools: [
        defineTool({
          name: "anything",
          description: "Takes whatever it is given.",
          inputSchema: z.looseObject({ free: z.unknown() }),
          execute: async ({ input }) => input,
        }),
        ...referenceTools,
      ],
      prices: { "any-model/name:v1": { promptPerMillion: 1, completionPerMillion: 2 } },
      policy: {
        requires: { issue_refund: ["lookup_order"] },
        profiles: { "any profile": { approvals: [] } },
      },
    });
    expect(gateway.catalogue.list().map((tool) => tool.name)).toContain("anything");
  });
});

describe("an unknown key in the options of a process fails with TG_INVALID_CONFIG", () => {
  it.each<[string, () => unknown, string, string]>([
    [
      "runtime options",
      () => parseRuntimeOptions({ lockDurationMS: 5_000 } as never),
      "lockDurationMS",
      "lockDurationMs",
    ],
    [
      "a tenant's limits",
      () => parseRuntimeOptions({ tenantLimits: { acme: { maxRuning: 2 } } } as never),
      "tenantLimits.acme.maxRuning",
      "maxRunning",
    ],
    [
      "the model client",
      () => resolveLLMClientConfig({ model: "m", baseUrl: "http://127.0.0.1:1/v1" } as never),
      "baseUrl",
      "baseURL",
    ],
    [
      "API options",
      () => resolveApiSettings({ client: undefined, bodyLimitByte: 2_048 } as never),
      "bodyLimitByte",
      "bodyLimitBytes",
    ],
  ])("%s", async (_kind, act, path, suggestion) => {
    const error = await thrown(act);
    expect(error.code).toBe("TG_INVALID_CONFIG");
    expect(issueAt(error, path)?.message).toBe(`unknown key (did you mean "${suggestion}"?)`);
  });

  it("GatewayClient options, before any connection is opened", async () => {
    const gateway = defineGateway({ tools: referenceTools });
    const error = await thrown(() => new GatewayClient({ gateway, runtim: { prefix: "x" } } as never));
    expect(error.code).toBe("TG_INVALID_CONFIG");
    expect(issueAt(error, "runtim")?.message).toBe('unknown key (did you mean "runtime"?)');
  });

  it("worker options, before any connection is opened", async () => {
    const gateway = defineGateway({ tools: referenceTools });
    const error = await refusal(startWorker({ gateway, concurency: 2 } as never));
    expect(error.code).toBe("TG_INVALID_CONFIG");
    expect(issueAt(error, "concurency")?.message).toBe('unknown key (did you mean "concurrency"?)');
  });
});
