import { describe, it } from "vitest";
import type { z } from "zod";
import type {
  enqueuedRunSchema,
  gatewayResponseSchema,
  runViewSchema,
  approvalSchema as storedApprovalViewSchema,
} from "../../src/api/schemas/response-schemas.js";
import type { approvalOnResultSchema } from "../../src/contracts/approval-decision.js";
import type {
  IApprovalRecordOnResult,
  IChatToolCall,
  IGatewayResponse,
  IGatewayRunInput,
  ITokenUsage,
  IToolResultFields,
  IToolResultPart,
  IUserContext,
  TApprovalDecision,
  TChatMessage,
  TRunStatus,
  TRunStopReason,
  TToolCallOutcome,
} from "../../src/contracts/index.js";
import type {
  chatMessageSchema,
  chatToolCallSchema,
  runStateSchema,
  runStatusSchema,
  tokenUsageSchema,
  toolResultPartSchema,
  userContextSchema,
} from "../../src/contracts/run-state.js";
import type { IEnqueuedRun, IRunView, runInputSchema } from "../../src/producer/index.js";
import type { IApproval } from "../../src/store/index.js";
import { expectExactlyEqual } from "./exactly-equal.js";

/*
 * Every public contract type that is also stored (or sent over HTTP) has a zod schema. The two are written
 * by hand, so these checks pin them together: a field added to one and not the other, an optional field
 * made required, or a type narrowed, fails `npm run typecheck` instead of vanishing at the next checkpoint.
 * Stored shapes are compared with the schema's output (what a read returns); requests with its input.
 */

type TStored<TSchema extends z.ZodType> = z.output<TSchema>;

/**
 * A response (or a run view holding one) with its tool results as one object type, as the schema has them:
 * `IToolResultPart` is a union (its `unknown_tool` member keeps the model's name), the same fields; the
 * client's `IApproval<TToolName>` is the stored approval with its `toolName` narrowed.
 */
type TSchemaShaped<T> = {
  [K in keyof T]: K extends "toolResults"
    ? IToolResultFields[]
    : K extends "response"
      ? TSchemaShaped<NonNullable<T[K]>>
      : K extends "pendingApprovals"
        ? IApproval[]
        : T[K];
};

describe("the stored shapes and the public contract types are the same types", () => {
  it("the user context", () => {
    expectExactlyEqual<IUserContext, TStored<typeof userContextSchema>>();
  });

  it("chat messages and their tool calls", () => {
    expectExactlyEqual<TChatMessage, TStored<typeof chatMessageSchema>>();
    expectExactlyEqual<IChatToolCall, TStored<typeof chatToolCallSchema>>();
  });

  it("a tool result, its approval record, outcome and decision", () => {
    expectExactlyEqual<IToolResultFields, TStored<typeof toolResultPartSchema>>();
    // The union's members together are exactly those fields (only `toolName` narrows, by outcome).
    expectExactlyEqual<
      IToolResultPart["toolName" | "outcome" | "input"],
      IToolResultFields["toolName" | "outcome" | "input"]
    >();
    expectExactlyEqual<IApprovalRecordOnResult, TStored<typeof approvalOnResultSchema>>();
    expectExactlyEqual<TToolCallOutcome, TStored<typeof toolResultPartSchema.shape.outcome>>();
    expectExactlyEqual<TApprovalDecision, TStored<typeof approvalOnResultSchema.shape.decision>>();
  });

  it("run status, stop reason and token usage", () => {
    expectExactlyEqual<TRunStatus, TStored<typeof runStatusSchema>>();
    expectExactlyEqual<TRunStopReason, NonNullable<TStored<typeof runStateSchema.shape.stopReason>>>();
    expectExactlyEqual<ITokenUsage, TStored<typeof tokenUsageSchema>>();
  });
});

describe("what callers send and read is what the schemas check and document", () => {
  it("a run request is what the request schema accepts", () => {
    expectExactlyEqual<IGatewayRunInput, z.input<typeof runInputSchema>>();
  });

  it("the response, the run view, an enqueued run and an approval match their response schemas", () => {
    expectExactlyEqual<TSchemaShaped<IGatewayResponse>, TStored<typeof gatewayResponseSchema>>();
    expectExactlyEqual<TSchemaShaped<IRunView>, TStored<typeof runViewSchema>>();
    expectExactlyEqual<IEnqueuedRun, TStored<typeof enqueuedRunSchema>>();
    expectExactlyEqual<IApproval, TStored<typeof storedApprovalViewSchema>>();
  });
});

describe("expectExactlyEqual tells apart what mutual assignability would not", () => {
  it("an optional field is not a required one that may be undefined", () => {
    // @ts-expect-error optional vs required-but-undefined.
    expectExactlyEqual<{ note?: string }, { note: string | undefined }>();
    expectExactlyEqual<{ note?: string }, { note?: string | undefined }>();
  });

  it("an extra optional field, a wider type and any all differ", () => {
    // @ts-expect-error one side has a field the other lacks.
    expectExactlyEqual<{ id: string }, { id: string; note?: string }>();
    // @ts-expect-error the other side has a field this one lacks.
    expectExactlyEqual<{ id: string; note?: string }, { id: string }>();
    // @ts-expect-error "a" | "b" is not "a".
    expectExactlyEqual<"a" | "b", "a">();
    // @ts-expect-error any equals only any.
    // biome-ignore lint/suspicious/noExplicitAny: the point of the case.
    expectExactlyEqual<{ input: unknown }, { input: any }>();
  });
});
