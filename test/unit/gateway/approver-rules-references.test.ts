import { describe, expect, it } from "vitest";
import type { TollgateError } from "../../../src/errors/index.js";
import { defineGateway, type IGatewayDefinition } from "../../../src/gateway/index.js";
import { definitionError, referenceExtraTools, referenceTools as tools } from "./reference-gateway.js";

const extraTools = referenceExtraTools;

function thrownBy(approvals: IGatewayDefinition["approvals"]): TollgateError {
  return definitionError({ approvals });
}

describe("defineGateway checks its approver rules", () => {
  it.each<[string, IGatewayDefinition["approvals"], string]>([
    [
      "a tool it lacks",
      { rules: [{ name: "r", tools: ["issue_refnd"], quorum: 2 }] },
      "approvals.rules.0.tools.0",
    ],
    [
      "a tag no tool has",
      { rules: [{ name: "r", tags: ["biling"], quorum: 2 }] },
      "approvals.rules.0.tags.0",
    ],
    [
      "the second name of a later rule",
      {
        rules: [
          { name: "a", tools: ["lookup_order"], quorum: 2 },
          { name: "b", tools: ["issue_refund", "refund"], approvers: { subjects: ["cfo"] } },
        ],
      },
      "approvals.rules.1.tools.1",
    ],
    ["quorum below 1", { rules: [{ name: "r", quorum: 0 }] }, "approvals.rules.0.quorum"],
    ["a quorum above 10", { rules: [{ name: "r", quorum: 11 }] }, "approvals.rules.0.quorum"],
    [
      "a name used twice",
      {
        rules: [
          { name: "r", quorum: 2 },
          { name: "r", quorum: 2 },
        ],
      },
      "approvals.rules.1.name",
    ],
  ])("refuses %s with TG_INVALID_GATEWAY naming the key", (_label, approvals, path) => {
    const error = thrownBy(approvals);
    expect(error.code).toBe("TG_INVALID_GATEWAY");
    expect(error.details?.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(error.message).toContain(path);
  });

  it("accepts the names of extra tools and tags, and defaults to the requester check on", () => {
    const gateway = defineGateway({
      tools,
      extraTools,
      approvals: {
        rules: [
          { name: "reports", tools: ["export_ledger"], approvers: { roles: ["auditors"] } },
          { name: "four-eyes", tags: ["billing"], quorum: 2 },
        ],
      },
    });
    expect(gateway.settings.approvals.requesterMayApprove).toBe(false);
    expect(gateway.settings.approvals.rules.map((rule) => rule.name)).toEqual(["reports", "four-eyes"]);
    expect(defineGateway({ tools }).settings.approvals).toEqual({ rules: [], requesterMayApprove: false });
  });
});
