import { describe, expect, it } from "vitest";
import type { IToolPolicyConfig, TAnyToolDef } from "../../../src/contracts/index.js";
import type { TollgateError } from "../../../src/errors/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import {
  definitionError,
  referenceExtraTools,
  namedTool as tool,
  referenceTools as tools,
} from "./reference-gateway.js";

const extraTools = referenceExtraTools;

function thrownBy(policy: IToolPolicyConfig, extra: TAnyToolDef[] = extraTools): TollgateError {
  return definitionError({ policy, extraTools: extra });
}

describe("defineGateway checks every name its policy and extraTools use", () => {
  it.each<[string, IToolPolicyConfig, TAnyToolDef[], string, string]>([
    [
      "a requires key naming no tool",
      { requires: { issue_refnd: ["lookup_order"] } },
      extraTools,
      "policy.requires.issue_refnd",
      "issue_refnd",
    ],
    [
      "a required tool naming no tool",
      { requires: { issue_refund: ["lookup_order", "lokup_order"] } },
      extraTools,
      "policy.requires.issue_refund.1",
      "lokup_order",
    ],
    [
      "a profile approval naming neither a tool nor a tag",
      { profiles: { cautious: { approvals: ["billing", "isue_refund"] } } },
      extraTools,
      "policy.profiles.cautious.approvals.1",
      "isue_refund",
    ],
    ["an allowed tag no tool has", { allowTags: ["biling"] }, extraTools, "policy.allowTags.0", "biling"],
    [
      "a denied tag no tool has",
      { denyTags: ["orders", "internal"] },
      extraTools,
      "policy.denyTags.1",
      "internal",
    ],
    [
      "an extra tool with a default tool's name",
      {},
      [extraTools[0]!, tool("lookup_order")],
      "extraTools.1",
      "lookup_order",
    ],
  ])("%s fails with TG_INVALID_GATEWAY naming the key path", (_name, policy, extra, path, name) => {
    const error = thrownBy(policy, extra);
    expect(error.code).toBe("TG_INVALID_GATEWAY");
    expect(error.message).toContain(path);
    expect(error.message).toContain(`"${name}"`);
    expect(error.details?.issues).toEqual([{ path, message: expect.stringContaining(`"${name}"`) }]);
  });

  it("reports every wrong name at once", () => {
    const error = thrownBy({ requires: { nope: ["lookup_order"] }, allowTags: ["nothing"] });
    expect(error.details?.issues?.map((issue) => issue.path)).toEqual([
      "policy.requires.nope",
      "policy.allowTags.0",
    ]);
  });

  it("accepts a gateway whose names all exist, extra tools and tags included", () => {
    const gateway = defineGateway({
      tools,
      extraTools,
      policy: {
        requires: { issue_refund: ["lookup_order"], export_ledger: ["lookup_order"] },
        profiles: { cautious: { approvals: ["issue_refund", "billing", "export_ledger", "reports"] } },
        allowTags: ["orders", "billing", "reports"],
        denyTags: ["reports"],
      },
    });
    expect(gateway.catalogue.list().map((each) => each.name)).toEqual([
      "lookup_order",
      "issue_refund",
      "export_ledger",
    ]);
  });

  it("a name inherited from Object.prototype is not a tool", () => {
    const error = thrownBy({ requires: { issue_refund: ["constructor"] } });
    expect(error.details?.issues?.[0]?.path).toBe("policy.requires.issue_refund.0");
  });
});
