import type { IApproval } from "../../../src/contracts/index.js";

/** The clock of the approval machine's unit tests. */
export const now = 1_700_000_000_000;

/** A parked call waiting for a human, with one named reject option. */
export const pending: IApproval = {
  schemaVersion: 2,
  approvalId: "run-1-s0-c0-approval",
  runId: "run-1",
  threadId: "thread-1",
  callId: "run-1-s0-c0",
  toolName: "refund",
  input: { amount: 90 },
  userContext: { userId: "user-1" },
  additionalTools: [],
  requestedAt: now - 1000,
  expiresAt: now + 60_000,
  status: "pending",
  inputHash: "hash-of-input",
  rejectOptions: [{ name: "too_much", title: "Too much", promptFill: "Ask for less." }],
};
