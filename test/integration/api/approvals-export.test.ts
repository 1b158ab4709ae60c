import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IRunningApi, startApi } from "../../../src/api/index.js";
import { csvHeader } from "../../../src/cli/approval-export-format.js";
import { runCli } from "../../../src/cli/main.js";
import { approvalRecordVersion, type IApproval } from "../../../src/store/index.js";
import { decideStored } from "../../helpers/decide-stored.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { captureIo } from "../../unit/cli/capture-io.js";
import { apiTestGateway, apiTestTokens, silentLogger } from "./api-fixture.js";

/**
 * `tollgate approvals export` against a real API: it follows the cursors through more than one page of
 * the largest size (1,000), so an auditor's export holds every decision in the range, once.
 */
/** The named reject option one decision chose. */
const wrongCustomer = {
  name: "wrong_customer",
  title: "Wrong customer",
  promptFill: "The address is not the customer's.",
};

describe("tollgate approvals export", () => {
  let harness: IHarness;
  let api: IRunningApi;
  const now = Date.now();
  const decidedCount = 1_205;

  beforeAll(async () => {
    harness = await createHarness(apiTestGateway, "approvals-export");
    api = await startApi({
      client: harness.client,
      tokens: Object.values(apiTestTokens),
      logger: silentLogger(),
      port: 0,
      host: "127.0.0.1",
    });
    await clientInternals(harness.client).runtime.ready();
    const { approvals } = clientInternals(harness.client).runtime;
    for (let index = 0; index < decidedCount + 10; index += 1) {
      const runId = `run_export${index}`;
      const approvalId = `${runId}-s0-c0-approval`;
      await approvals.create(
        {
          schemaVersion: approvalRecordVersion,
          approvalId,
          runId,
          threadId: `thread_export${index}`,
          callId: `${runId}-s0-c0`,
          toolName: index % 2 === 0 ? "send_email" : "refund",
          input: { note: `note ${index}` },
          userContext: { userId: `user-${index % 3}` },
          additionalTools: [],
          requestedAt: now - 60_000,
          expiresAt: now + 60_000,
        },
        {
          type: "tool-call-parked",
          data: { callId: `${runId}-s0-c0`, toolName: "x", approvalId, expiresAt: 0 },
        },
      );
      // The last 10 stay pending: an export of decisions leaves them out.
      if (index < decidedCount) {
        await decideStored(approvals, approvalId, {
          decision: index % 2 === 0 ? "approved" : "rejected",
          approver: `rev-${index % 2}`,
          decidedAt: now - 10_000 + index,
          ...(index % 2 === 0
            ? { editedInput: { note: "edited" } }
            : { comment: index === 1 ? "=HYPERLINK(1)" : "no, thanks" }),
          ...(index === 7 ? { rejectOption: wrongCustomer } : {}),
        });
      }
    }
  }, 120_000);
  afterAll(async () => {
    await api.close();
    await harness.close();
  });

  const env = () => ({ TOLLGATE_URL: api.url, TOLLGATE_TOKEN: apiTestTokens.approvalReader.token });

  it("exports every decision since a time as JSON lines, newest first, across pages", async () => {
    const io = captureIo(env());
    expect(await runCli(["approvals", "export", "--since", "1h", "--format", "jsonl"], io)).toBe(0);
    expect(io.errors).toEqual([]);
    const lines = io.out.map((line) => JSON.parse(line) as IApproval);
    expect(lines).toHaveLength(decidedCount);
    expect(new Set(lines.map((approval) => approval.approvalId)).size).toBe(decidedCount);
    expect(lines[0]).toMatchObject({
      approvalId: `run_export${decidedCount - 1}-s0-c0-approval`,
      status: "approved",
      decision: { approver: "rev-0", editedInput: { note: "edited" } },
      diff: [{ op: "replace", path: "/note", from: `note ${decidedCount - 1}`, value: "edited" }],
    });
    const times = lines.map((approval) => approval.decision!.decidedAt);
    expect(times).toEqual([...times].sort((left, right) => right - left));
  });

  it("exports CSV with a header, filtered by status, tool and time range", async () => {
    const io = captureIo(env());
    const since = new Date(now - 10_000 + 100).toISOString();
    const until = new Date(now - 10_000 + 199).toISOString();
    expect(
      await runCli(
        [
          "approvals",
          "export",
          "--since",
          since,
          "--until",
          until,
          "--format",
          "csv",
          "--status",
          "rejected",
          "--tool",
          "refund",
        ],
        io,
      ),
    ).toBe(0);
    expect(io.out[0]).toBe(csvHeader());
    const rows = io.out.slice(1);
    // Odd indexes 101..199 are the rejected refunds in that range.
    expect(rows).toHaveLength(50);
    expect(rows.every((row) => row.includes(",rejected,") && row.includes(",refund,"))).toBe(true);
    expect(rows[0]).toContain("run_export199-s0-c0-approval");
    expect(rows[0]).toContain(',"no, thanks",');
  });

  it("names the reject option a decision chose, beside the reviewer's reason", async () => {
    const io = captureIo(env());
    expect(
      await runCli(["approvals", "export", "--since", "1h", "--format", "csv", "--status", "rejected"], io),
    ).toBe(0);
    const header = (io.out[0] ?? "").split(",");
    expect(header.indexOf("rejectOption")).toBe(header.indexOf("comment") + 1);
    const row = io.out.find((line) => line.startsWith("run_export7-"));
    expect(row).toContain(',rev-1,"no, thanks",wrong_customer,');
    // A reject without an option leaves the cell empty.
    expect(io.out.find((line) => line.startsWith("run_export9-"))).toContain(',rev-1,"no, thanks",,');
  });

  it("neutralises a formula in a cell and reports an API refusal with exit 1", async () => {
    const io = captureIo(env());
    expect(
      await runCli(["approvals", "export", "--since", "1h", "--format", "csv", "--user", "user-1"], io),
    ).toBe(0);
    const formula = io.out.find((row) => row.startsWith("run_export1-"));
    expect(formula).toContain(",'=HYPERLINK(1),");
    const denied = captureIo({ TOLLGATE_URL: api.url, TOLLGATE_TOKEN: apiTestTokens.writer.token });
    expect(await runCli(["approvals", "export", "--since", "1h", "--format", "jsonl"], denied)).toBe(1);
    expect(denied.errors.join("\n")).toMatch(/GET \/v1\/approvals\?.* failed: 403 TG_FORBIDDEN/);
  });
});
