import { describe, expect, it } from "vitest";
import type { IApproval } from "../../../src/contracts/index.js";
import { approvalMessageOf, decodeActionValue } from "../../../src/slack/index.js";

const requestedAt = Date.UTC(2026, 11, 1);

const pending: IApproval = {
  schemaVersion: 2,
  approvalId: "run-1-s1-c0-approval",
  runId: "run-1",
  threadId: "thread-1",
  callId: "run-1-s1-c0",
  toolName: "refund",
  input: { chargeId: "ch_42", amount: 250 },
  reason: "Large refund for <@U0BOSS> & <!here>",
  userContext: { userId: "customer-17" },
  createdBy: "support-backend",
  requestedAt,
  expiresAt: requestedAt + 86_400_000,
  status: "pending",
  inputHash: "hash-of-input",
  rejectOptions: [
    {
      name: "wrong_customer",
      title: "Wrong customer",
      promptFill: "Wrong customer.",
      description: "Not theirs.",
    },
  ],
};

type TBlock = { type: string; text?: { text: string }; elements?: Array<Record<string, unknown>> };
const blocksOf = (approval: IApproval, type = "approval-requested" as const) =>
  approvalMessageOf(approval, "ops-slack", { type }).blocks as TBlock[];
const textOf = (blocks: TBlock[]) =>
  blocks
    .map((block) => [block.text?.text, ...(block.elements ?? []).map((element) => element.text)].join(" "))
    .join("\n");

describe("the Slack message of an approval", () => {
  it("shows a pending call with its reason, who asked, its input and the decision buttons", () => {
    const message = approvalMessageOf(pending, "ops-slack", { type: "approval-requested" });
    expect(message.text).toBe("Approval needed: refund");
    const text = textOf(message.blocks as TBlock[]);
    expect(text).toContain("*Asked by:* customer-17, run created by support-backend");
    expect(text).toContain('"chargeId": "ch_42"');
    expect(text).toContain("<!date^1796169600^{date_short_pretty} {time}|2026-12-02 00:00 UTC>");
    const actions = (message.blocks as TBlock[]).find((block) => block.type === "actions")!.elements!;
    expect(actions.map((element) => element.action_id)).toEqual([
      "tollgate-approve",
      "tollgate-edit",
      "tollgate-reject",
      "tollgate-reject-option:wrong_customer",
    ]);
    expect(actions.map((element) => decodeActionValue(element.value))).toEqual([
      { target: "ops-slack", approvalId: pending.approvalId, inputHash: "hash-of-input" },
      { target: "ops-slack", approvalId: pending.approvalId, inputHash: "hash-of-input" },
      { target: "ops-slack", approvalId: pending.approvalId, inputHash: "hash-of-input" },
      {
        target: "ops-slack",
        approvalId: pending.approvalId,
        inputHash: "hash-of-input",
        option: "wrong_customer",
      },
    ]);
    // Approve and reject ask first; the option's confirmation says what it means.
    expect(actions[0]!.confirm).toBeDefined();
    expect(JSON.stringify(actions[3]!.confirm)).toContain("Not theirs.");
  });

  it("escapes what the model, the policy and the user wrote: no mention, no link", () => {
    const text = textOf(
      blocksOf({ ...pending, input: { note: "<!channel> see <https://evil.example|here>" } }),
    );
    expect(text).toContain("Large refund for &lt;@U0BOSS&gt; &amp; &lt;!here&gt;");
    expect(text).toContain("&lt;!channel&gt; see &lt;https://evil.example|here&gt;");
    expect(text).not.toMatch(/<!channel>|<!here>|<@U0BOSS>|<https:/);
  });

  it("cuts an input too long for a section, within Slack's 3,000 characters", () => {
    const blocks = blocksOf({ ...pending, input: { text: "x".repeat(10_000) } });
    for (const block of blocks) expect((block.text?.text ?? "").length).toBeLessThanOrEqual(3_000);
    expect(textOf(blocks)).toContain("…```");
  });

  it.each<[string, Partial<IApproval>, string, string[]]>([
    [
      "approved",
      {
        status: "approved",
        decision: { decision: "approved", approver: "dana", decidedAt: requestedAt + 60_000 },
      },
      "Approved by dana: refund",
      [],
    ],
    [
      "edited and approved",
      {
        status: "approved",
        decision: {
          decision: "approved",
          approver: "dana",
          decidedAt: requestedAt + 60_000,
          editedInput: { chargeId: "ch_42", amount: 200 },
        },
      },
      "Edited and approved by dana: refund",
      ["*Input asked for:*", "*Edited to:*", '"amount": 200'],
    ],
    [
      "rejected with an option and a comment",
      {
        status: "rejected",
        decision: {
          decision: "rejected",
          approver: "lead",
          comment: "not <!here>",
          decidedAt: requestedAt + 60_000,
          rejectOption: { name: "wrong_customer", title: "Wrong customer", promptFill: "Wrong customer." },
        },
      },
      "Rejected by lead: refund",
      ["*Option:* Wrong customer", "*Comment:* not &lt;!here&gt;"],
    ],
    [
      "refused by the policy after an edit",
      {
        status: "refused",
        decision: {
          decision: "refused",
          approver: "dana",
          decidedAt: requestedAt + 60_000,
          reason: "Too much.",
        },
      },
      "Edited by dana, then refused by the tool's policy: refund",
      ["*Policy:* Too much."],
    ],
    [
      "expired",
      { status: "expired", decision: { decision: "expired", decidedAt: requestedAt + 86_400_000 } },
      "Expired, nobody decided: refund",
      [],
    ],
    [
      "cancelled",
      { status: "cancelled", decision: { decision: "cancelled", decidedAt: requestedAt + 1_000 } },
      "Cancelled with its run: refund",
      [],
    ],
  ])("once %s: says who decided what, and offers no button", (_case, decided, headline, lines) => {
    const message = approvalMessageOf({ ...pending, ...decided }, "ops-slack", { type: "approval-decided" });
    expect(message.text).toBe(headline);
    const blocks = message.blocks as TBlock[];
    expect(blocks.some((block) => block.type === "actions")).toBe(false);
    for (const line of lines) expect(textOf(blocks)).toContain(line);
  });

  it("shows a quorum's votes, and the edit its votes approve", () => {
    const blocks = blocksOf({
      ...pending,
      inputs: { proposed: pending.input, approved: { chargeId: "ch_42", amount: 120 } },
      quorum: {
        required: 2,
        approvals: [
          {
            approver: "ann",
            decidedAt: requestedAt + 1_000,
            editedInput: { chargeId: "ch_42", amount: 120 },
          },
        ],
      },
    });
    const text = textOf(blocks);
    expect(text).toContain("1 of 2 approvals: ann");
    expect(text).toContain("*Input, as edited by the first approver:*");
    expect(text).toContain('"amount": 120');
  });

  it("says an expiry is near, or that the approval was escalated, while it is pending", () => {
    const expiring = approvalMessageOf(pending, "ops-slack", { type: "approval-expiring" });
    expect(textOf(expiring.blocks as TBlock[])).toContain(":alarm_clock: Expires soon");
    const escalated = approvalMessageOf(pending, "ops-slack", {
      type: "approval-escalated",
      escalation: { afterMs: 30 * 60_000 },
    });
    expect(textOf(escalated.blocks as TBlock[])).toContain("still pending 30 min after it was asked");
  });
});
