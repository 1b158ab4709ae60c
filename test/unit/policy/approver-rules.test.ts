import { describe, expect, it } from "vitest";
import {
  approvalsConfigSchema,
  checkApprover,
  quorumOf,
  requesterRuleName,
  ruleMatches,
  type TApprovalsConfigInput,
} from "../../../src/policy/index.js";

const config = (input: TApprovalsConfigInput) => approvalsConfigSchema.parse(input);

const rules = config({
  rules: [
    { name: "refunds", tools: ["refund"], approvers: { roles: ["finance"], subjects: ["cfo"] }, quorum: 2 },
    { name: "billing", tags: ["billing"], approvers: { roles: ["billing-leads"] } },
    { name: "mail", tools: ["send_email"], approvers: { subjects: ["lead"] } },
    { name: "everything-twice", quorum: 1 },
  ],
});

const refund = { name: "refund", tags: ["billing"] };
const invoice = { name: "invoice", tags: ["billing"] };
const email = { name: "send_email", tags: ["email"] };
const lookup = { name: "lookup" };
const requester = { createdBy: "svc-backend", userId: "u-ada" };

describe("ruleMatches", () => {
  it.each([
    ["by tool name", { name: "r", tools: ["refund"], quorum: 2 }, refund, true],
    ["by tag", { name: "r", tags: ["billing"], quorum: 2 }, invoice, true],
    ["by either", { name: "r", tools: ["x"], tags: ["billing"], quorum: 2 }, refund, true],
    ["another tool", { name: "r", tools: ["refund"], quorum: 2 }, email, false],
    ["a tool without tags", { name: "r", tags: ["billing"], quorum: 2 }, lookup, false],
    ["neither tools nor tags: every tool", { name: "r", quorum: 2 }, lookup, true],
  ])("%s", (_label, rule, tool, expected) => {
    expect(ruleMatches(config({ rules: [rule] }).rules[0]!, tool)).toBe(expected);
  });
});

describe("quorumOf", () => {
  it.each([
    ["the largest quorum of the matching rules", refund, 2],
    ["a tool no quorum rule names", email, 1],
    ["a tool no rule names but the catch-all", lookup, 1],
  ])("%s", (_label, tool, expected) => {
    expect(quorumOf(rules.rules, tool)).toBe(expected);
  });

  it("is 1 without rules", () => {
    expect(quorumOf([], refund)).toBe(1);
  });
});

describe("checkApprover", () => {
  it.each([
    ["a listed subject", refund, { subject: "cfo", roles: ["billing-leads"] }, { allowed: true, quorum: 2 }],
    [
      "a listed role",
      refund,
      { subject: "ann", roles: ["finance", "billing-leads"] },
      { allowed: true, quorum: 2 },
    ],
    [
      "every matching rule must allow: the second refuses",
      refund,
      { subject: "cfo", roles: [] },
      { allowed: false, rule: "billing" },
    ],
    [
      "no role nor subject listed",
      email,
      { subject: "bob", roles: ["approvals:decide"] },
      { allowed: false, rule: "mail" },
    ],
    [
      "admin is no approver of a rule that does not list it",
      email,
      { subject: "root", roles: ["admin"] },
      { allowed: false, rule: "mail" },
    ],
    [
      "a tool without approver rules: anyone",
      lookup,
      { subject: "bob", roles: [] },
      { allowed: true, quorum: 1 },
    ],
    [
      "the run's creator",
      lookup,
      { subject: "svc-backend", roles: ["admin"] },
      { allowed: false, rule: requesterRuleName },
    ],
    ["the run's user", lookup, { subject: "u-ada", roles: [] }, { allowed: false, rule: requesterRuleName }],
    [
      "the requester check comes before the rules",
      email,
      { subject: "u-ada", roles: [] },
      { allowed: false, rule: requesterRuleName },
    ],
  ])("%s", (_label, tool, approver, expected) => {
    expect(checkApprover(rules, tool, requester, approver)).toMatchObject(expected);
  });

  it("names the rule and the approver in the refusal", () => {
    const check = checkApprover(rules, email, requester, { subject: "bob", roles: [] });
    expect(check).toMatchObject({ allowed: false });
    expect(!check.allowed && check.message).toMatch(
      /^approval rule "mail": "bob" is not one of its approvers/,
    );
    const own = checkApprover(rules, lookup, requester, { subject: "u-ada", roles: [] });
    expect(!own.allowed && own.message).toMatch(/^requester is never approver: "u-ada" is this run's user/);
  });

  it.each([
    ["the creator", { subject: "svc-backend", roles: [] }],
    ["the user", { subject: "u-ada", roles: [] }],
  ])("requesterMayApprove lets %s decide", (_label, approver) => {
    const allowing = config({ requesterMayApprove: true });
    expect(checkApprover(allowing, lookup, requester, approver)).toEqual({ allowed: true, quorum: 1 });
  });

  it("a run without a creator (made by a library) checks its user only", () => {
    const noCreator = { userId: "u-ada" };
    expect(checkApprover(config({}), lookup, noCreator, { subject: "svc-backend", roles: [] })).toEqual({
      allowed: true,
      quorum: 1,
    });
  });
});

describe("approvalsConfigSchema", () => {
  it("defaults to no rules, requester never approver", () => {
    expect(config({})).toEqual({ rules: [], requesterMayApprove: false });
  });

  it.each([
    ["quorum below 1", { rules: [{ name: "r", quorum: 0 }] }, "rules.0.quorum"],
    ["a fractional quorum", { rules: [{ name: "r", quorum: 1.5 }] }, "rules.0.quorum"],
    ["a rule that does nothing", { rules: [{ name: "r", tools: ["x"] }] }, "rules.0"],
    ["approvers naming nobody", { rules: [{ name: "r", approvers: {} }] }, "rules.0.approvers"],
    ["an empty tool list", { rules: [{ name: "r", tools: [], quorum: 2 }] }, "rules.0.tools"],
    [
      "a name used twice",
      {
        rules: [
          { name: "r", quorum: 2 },
          { name: "r", quorum: 3 },
        ],
      },
      "rules.1.name",
    ],
    ["an unknown key", { rules: [{ name: "r", quorum: 2, approver: {} }] }, "rules.0"],
    ["requesterMayApprove not a boolean", { requesterMayApprove: "yes" }, "requesterMayApprove"],
  ])("refuses %s", (_label, input, path) => {
    const parsed = approvalsConfigSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join("."))).toContain(path);
  });
});
