import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { IApproval } from "../../../src/contracts/index.js";
import { blockErrorsOf, decodeActionValue, editedInputOf, editModalOf } from "../../../src/slack/index.js";

const approval: IApproval = {
  schemaVersion: 2,
  approvalId: "run-2-s1-c0-approval",
  runId: "run-2",
  threadId: "thread-2",
  callId: "run-2-s1-c0",
  toolName: "refund",
  input: { amount: 250, currency: "EUR", express: false, address: { city: "Lyon" } },
  reason: "Large refund",
  userContext: { userId: "u-2" },
  requestedAt: 0,
  expiresAt: 60_000,
  status: "pending",
  inputHash: "h1",
};
const value = { target: "ops-slack", approvalId: approval.approvalId, inputHash: "h1" };
const inputSchema = z.toJSONSchema(
  z.object({
    amount: z.number().positive().max(1000).describe("In the charge's currency."),
    currency: z.enum(["EUR", "USD"]),
    express: z.boolean(),
    address: z.object({ city: z.string() }),
    note: z.string().optional(),
    count: z.int().optional(),
  }),
) as Record<string, unknown>;

type TInput = {
  type: string;
  block_id: string;
  optional?: boolean;
  element: Record<string, unknown>;
  hint?: unknown;
};
const inputsOf = (view: { blocks: unknown[] }) =>
  (view.blocks as TInput[]).filter((block) => block.type === "input");

describe("the edit modal", () => {
  it("has one field per key, each edited as its schema says, and keeps the button's value", () => {
    const view = editModalOf({ approval, value, inputSchema });
    expect(view).toMatchObject({ type: "modal", callback_id: "tollgate-edit", submit: { text: "Approve" } });
    expect(decodeActionValue(view.private_metadata)).toEqual(value);
    expect(
      inputsOf(view).map((block) => [
        block.block_id,
        block.element.type,
        block.element.action_id,
        block.optional,
      ]),
    ).toEqual([
      ["input.amount", "number_input", "number", false],
      ["input.currency", "static_select", "choice", false],
      ["input.express", "static_select", "choice", false],
      ["input.address", "plain_text_input", "json", false],
      ["input.note", "plain_text_input", "text", true],
      ["input.count", "number_input", "number", true],
    ]);
    const [amount, currency, , address] = inputsOf(view);
    expect(amount!.element).toMatchObject({
      initial_value: "250",
      is_decimal_allowed: true,
      max_value: "1000",
    });
    expect(amount!.hint).toMatchObject({ text: "In the charge's currency." });
    expect(currency!.element.initial_option).toMatchObject({ value: '"EUR"' });
    expect(address!.element.initial_value).toBe('{\n  "city": "Lyon"\n}');
    expect(inputsOf(view)[5]!.element.is_decimal_allowed).toBe(false);
  });

  it("edits the whole input as JSON when the schema is not an object's, and refuses one too large for Slack", () => {
    const whole = editModalOf({ approval, value, inputSchema: undefined });
    expect(inputsOf(whole).map((block) => [block.block_id, block.element.action_id])).toEqual([
      ["input", "json"],
    ]);
    const huge = editModalOf({ approval: { ...approval, input: { text: "x".repeat(4_000) } }, value });
    expect(huge.submit).toBeUndefined();
    expect(JSON.stringify(huge.blocks)).toContain("too large to edit in Slack");
  });
});

describe("a submitted edit", () => {
  const shown = approval.input;

  it("replaces the fields it has, drops the ones left empty, and keeps the rest", () => {
    expect(
      editedInputOf(
        {
          "input.amount": { number: { type: "number_input", value: "120.5" } },
          "input.currency": { choice: { type: "static_select", selected_option: { value: '"USD"' } } },
          "input.address": { json: { type: "plain_text_input", value: '{"city":"Nantes"}' } },
          "input.note": { text: { type: "plain_text_input", value: "partial" } },
          "input.express": { choice: { type: "static_select", selected_option: null } },
        },
        shown,
      ),
    ).toEqual({
      ok: true,
      input: { amount: 120.5, currency: "USD", address: { city: "Nantes" }, note: "partial" },
    });
  });

  it("takes the whole input from the JSON field", () => {
    expect(editedInputOf({ input: { json: { value: '{"amount":1}' } } }, shown)).toEqual({
      ok: true,
      input: { amount: 1 },
    });
  });

  it("keeps a field named __proto__ a key, never the edit's prototype", () => {
    const edited = editedInputOf({ "input.__proto__": { json: { value: '{"admin":true}' } } }, { amount: 1 });
    expect(edited.ok).toBe(true);
    const input = (edited as { input: Record<string, unknown> }).input;
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    expect(Object.hasOwn(input, "__proto__")).toBe(true);
    expect((input as { admin?: unknown }).admin).toBeUndefined();
  });

  it("answers what it cannot read under its field", () => {
    expect(
      editedInputOf(
        {
          "input.amount": { number: { value: "twelve" } },
          "input.address": { json: { value: "{city:" } },
          "input.other": { forged: { value: "1" } },
        },
        shown,
      ),
    ).toEqual({
      ok: false,
      errors: {
        "input.amount": "must be a number",
        "input.address": expect.stringMatching(/^is not valid JSON/),
        "input.other": "this field is not one Tollgate sent",
      },
    });
  });

  it("puts each schema issue under the field its path names", () => {
    const blockIds = ["input.amount", "input.address", "input.note"];
    expect(
      blockErrorsOf(
        [
          { path: "input.amount", message: "Too big: expected number to be <=1000" },
          { path: "input.address.city", message: "expected string" },
          { path: "input.address.zip", message: "required" },
          { path: "input", message: 'unknown key "x"' },
        ],
        blockIds,
      ),
    ).toEqual({
      // A root issue goes under the first field.
      "input.amount": 'Too big: expected number to be <=1000; unknown key "x"',
      "input.address": "city: expected string; zip: required",
    });
    expect(blockErrorsOf([{ path: "input.amount", message: "Too big" }], ["input"])).toEqual({
      input: "amount: Too big",
    });
  });
});
