import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { displayWidth, runCliOnTerminal } from "../../e2e/cli-on-terminal.js";
import { logFields, startCli } from "../../e2e/cli-process.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { captureIo } from "../../unit/cli/capture-io.js";
import { apiTestTokens, bearer, createApiFixture, type IApiFixture } from "../api/api-fixture.js";

/*
 * What an operator sees: the CLI as a real process on a pseudo-terminal of 80 and 120 columns, against a
 * real API, worker and Redis. Tables fit the terminal, `runs get` says who the run is for, what it was
 * asked and which calls a person approved or edited, `approvals list` shows inputs as fields, durations
 * read in human units, and every command takes --json and -o.
 */

const writer = bearer("writer");
const approver = bearer("approver");
const approvalReader = bearer("approvalReader");
const widths = [80, 120] as const;

describe("the CLI on a terminal", () => {
  let fixture: IApiFixture;
  let env: Record<string, string>;
  // The scripted model reads its script from the user message: the input is that JSON, long as a real one.
  const userMessage = (label: string) =>
    script(
      { calls: [{ name: "send_email", input: { to: "bob@example.com", subject: `Q3 numbers ${label}` } }] },
      { text: `Sent the quarterly numbers (${label}); anything else I can do for the finance team today?` },
    );

  async function parkedRun(label: string, userId: string) {
    const enqueued = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: writer,
      payload: { input: userMessage(label), userContext: { userId } },
    });
    const { runId } = enqueued.json() as { runId: string };
    const approval = await waitUntil(async () => {
      const listed = await fixture.app.inject({
        method: "GET",
        url: `/v1/approvals?runId=${runId}`,
        headers: approvalReader,
      });
      return (listed.json() as { approvals: Array<{ approvalId: string }> }).approvals[0];
    });
    return { runId, approvalId: approval.approvalId };
  }

  async function finished(runId: string) {
    return waitUntil(async () => {
      const view = (
        await fixture.app.inject({ method: "GET", url: `/v1/runs/${runId}`, headers: bearer("admin") })
      ).json() as { status: string };
      return view.status === "completed" ? view : undefined;
    });
  }

  let edited: { runId: string; approvalId: string };
  let approvedAsIs: { runId: string; approvalId: string };
  let pending: { runId: string; approvalId: string };
  // Long enough that its input does not fit on an 80-column line.
  const pendingLabel = "pending for the regional breakdown of every office in Europe";

  beforeAll(async () => {
    fixture = await createApiFixture("cli-terminal");
    const url = await fixture.app.listen({ host: "127.0.0.1", port: 0 });
    env = { TOLLGATE_URL: url, TOLLGATE_TOKEN: apiTestTokens.admin.token };
    edited = await parkedRun("edited", "u-ada");
    approvedAsIs = await parkedRun("as proposed", "u-bob");
    pending = await parkedRun(pendingLabel, "u-cy");
    const edit = await fixture.app.inject({
      method: "POST",
      url: `/v1/approvals/${edited.approvalId}/approve`,
      headers: approver,
      payload: { input: { to: "carol@example.com", subject: "Q3 numbers edited" }, comment: "wrong address" },
    });
    expect(edit.statusCode).toBe(200);
    const asIs = await fixture.app.inject({
      method: "POST",
      url: `/v1/approvals/${approvedAsIs.approvalId}/approve`,
      headers: approver,
      payload: {},
    });
    expect(asIs.statusCode).toBe(200);
    await finished(edited.runId);
    await finished(approvedAsIs.runId);
  }, 60_000);
  afterAll(() => fixture.close());

  const onTerminal = async (columns: number, ...args: string[]) => {
    const result = await runCliOnTerminal(args, { columns, env });
    expect(result.code, result.lines.join("\n")).toBe(0);
    return result.lines;
  };
  const fitsIn = (lines: readonly string[], columns: number) =>
    expect(lines.filter((line) => displayWidth(line) > columns)).toEqual([]);

  it.each(widths)("runs list fits %i columns and keeps every run id whole", async (columns) => {
    const lines = await onTerminal(columns, "runs", "list");
    fitsIn(lines, columns);
    expect(lines[0]).toMatch(/^RUN\s+STATUS\s/);
    for (const run of [edited, approvedAsIs, pending]) {
      expect(lines.some((line) => line.startsWith(`${run.runId} `))).toBe(true);
    }
    // How long a finished run took, in human units, not a bare count of milliseconds.
    if (columns === 120) {
      expect(lines[0]).toContain("TOOK");
      expect(lines.join("\n")).toMatch(/\b\d+(\.\d)? (ms|s)\b/);
      expect(lines.join("\n")).not.toMatch(/\b\d{4,} ms\b/);
    }
  });

  it.each(widths)(
    "runs get at %i columns names the user, the input and the edit, by whom and what it changed",
    async (columns) => {
      const lines = await onTerminal(columns, "runs", "get", edited.runId);
      fitsIn(lines, columns);
      const text = lines.join("\n");
      expect(text).toMatch(/^User:\s+u-ada$/m);
      expect(text).toMatch(/^Input:\s+\{"script":\[\{"calls":/m);
      const decision = lines.findIndex((line) =>
        /^ {2}send_email \(step 0\): edited and approved by alice/.test(line),
      );
      expect(decision).toBeGreaterThan(0);
      // What the edit changed, from the model's proposal; the subject it left alone is not repeated.
      expect(lines[decision + 1]).toBe("    to: bob@example.com → carol@example.com");
      expect(lines[decision + 2]).toBe("    comment: wrong address");
      expect(text).toMatch(/^Took:\s+\d+(\.\d)? (ms|s)/m);
    },
  );

  it("runs get shows a call approved as proposed with the input that ran", async () => {
    const lines = await onTerminal(120, "runs", "get", approvedAsIs.runId);
    const text = lines.join("\n");
    expect(text).toMatch(/^User:\s+u-bob$/m);
    const decision = lines.findIndex((line) => /^ {2}send_email \(step 0\): approved by alice/.test(line));
    expect(decision).toBeGreaterThan(0);
    expect(lines[decision + 1]).toBe("    to: bob@example.com, subject: Q3 numbers as proposed");
  });

  it.each(widths)(
    "approvals list at %i columns shows the input as fields, cut to the width",
    async (columns) => {
      const lines = await onTerminal(columns, "approvals", "list");
      fitsIn(lines, columns);
      const row = lines.findIndex((line) => line.startsWith(`${pending.approvalId} `));
      expect(row).toBeGreaterThan(0);
      expect(lines[row]).toMatch(/send_email\s+pending/);
      const fields = `  to: bob@example.com, subject: Q3 numbers ${pendingLabel}`;
      if (columns === 120) expect(lines[row + 1]).toBe(fields);
      else expect(lines[row + 1]).toBe(`${fields.slice(0, columns - 1)}…`);
      // Its expiry, as a time from now in human units.
      if (columns === 120) expect(lines[row]).toMatch(/in \d+ (h|min)( \d+ (min|s))?/);
    },
  );

  it("approvals list --status decided shows who decided, and the edited input", async () => {
    const lines = await onTerminal(120, "approvals", "list", "--status", "decided");
    fitsIn(lines, 120);
    const row = lines.findIndex((line) => line.startsWith(`${edited.approvalId} `));
    expect(lines[row]).toMatch(/send_email\s+approved by alice\s/);
    expect(lines[row + 1]).toContain("to: carol@example.com");
  });

  it("a table not on a terminal is not cut: -o table piped prints every value whole", async () => {
    const io = captureIo(env);
    expect(await runCli(["runs", "get", edited.runId, "-o", "table"], io)).toBe(0);
    const input = io.out.find((line) => line.startsWith("Input:"));
    expect(input).toContain(userMessage("edited"));
  });

  it("runs cancel takes --json and -o like every command", async () => {
    const first = await parkedRun("cancelled as JSON", "u-dee");
    const asJson = await runCliOnTerminal(["runs", "cancel", first.runId, "--json"], { columns: 80, env });
    expect(asJson.code, asJson.lines.join("\n")).toBe(0);
    expect(JSON.parse(asJson.lines.join("\n"))).toMatchObject({ runId: first.runId });
    const second = await parkedRun("cancelled as a table", "u-dee");
    const io = captureIo(env);
    expect(await runCli(["runs", "cancel", second.runId, "-o", "table"], io)).toBe(0);
    expect(io.out.join("\n")).toMatch(new RegExp(`^Run:\\s+${second.runId}$`, "m"));
  });

  it("a long-running command takes them too: model-server --json prints its lines as JSON", async () => {
    const model = startCli(["model-server", "--port", "0", "--json"], {});
    try {
      const line = await model.waitForLine((printed) => printed.includes("listening on http"));
      expect(logFields(line)).toMatchObject({
        name: "tollgate-model-server",
        msg: expect.stringMatching(/^tollgate scripted model listening on http:/),
      });
    } finally {
      expect(await model.stop()).toEqual({ code: 0, signal: null });
    }
  });
});
