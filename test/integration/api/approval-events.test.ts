import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IApiToken, type IRunningApi, startApi } from "../../../src/api/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { apiTestGateway, apiTestTokens, silentLogger } from "./api-fixture.js";
import { SseReader } from "./sse-reader.js";

const tokens: IApiToken[] = [
  ...Object.values(apiTestTokens),
  {
    token: "acme-reviewer-token-0123456789",
    subject: "acme-reviewer",
    roles: ["approvals:read"],
    tenant: "acme",
  },
];

describe("GET /v1/approvals/events", () => {
  let harness: IHarness;
  let api: IRunningApi;
  beforeAll(async () => {
    harness = await createHarness(apiTestGateway, "api-approval-events");
    await harness.startWorker();
    api = await startApi({
      client: harness.client,
      tokens,
      logger: silentLogger(),
      port: 0,
      host: "127.0.0.1",
      sseMaxStreamsPerToken: 2,
    });
  });
  afterAll(async () => {
    await api.close();
    await harness.close();
  });

  const open = (token: string, headers: Record<string, string> = {}, query = "") =>
    fetch(`${api.url}/v1/approvals/events${query}`, {
      headers: { authorization: `Bearer ${token}`, ...headers },
    });

  async function parkedRun(tenant?: string) {
    const { runId } = await harness.client.run({
      input: script(
        { calls: [{ name: "send_email", input: { to: "e@example.com", subject: "Hi" } }] },
        { text: "ok" },
      ),
      userContext: { userId: "user-events" },
      ...(tenant !== undefined ? { tenant } : {}),
    });
    return waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
  }

  it("streams new approvals and decisions live, scoped to the token's tenant, and resumes with Last-Event-ID", async () => {
    const response = await open(tokens.at(-1)!.token);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const stream = new SseReader(response.body!);
    await stream.readComment("connected");
    const other = await parkedRun();
    const mine = await parkedRun("acme");
    const requested = await stream.readUntilEvent("approval-requested");
    expect(JSON.parse(requested!.data!)).toMatchObject({
      type: "approval-requested",
      approvalId: mine.approvalId,
      tenant: "acme",
      toolName: "send_email",
      status: "pending",
    });
    await harness.client.approvals.approve(mine.approvalId, { approver: "alice" });
    const decided = await stream.readUntilEvent("approval-decided");
    expect(JSON.parse(decided!.data!)).toMatchObject({
      approvalId: mine.approvalId,
      status: "approved",
      approver: "alice",
    });
    // The default tenant's approval never reached the acme token.
    expect(stream.events.some((event) => event.data?.includes(other.approvalId))).toBe(false);
    await stream.cancel();

    // Resuming after the requested event replays the decision, and only it.
    const resumed = new SseReader(
      (await open(tokens.at(-1)!.token, { "last-event-id": requested!.id! })).body!,
    );
    const replayed = await resumed.readUntilEvent("approval-decided");
    expect(replayed!.id).toBe(decided!.id);
    expect(resumed.events.map((event) => event.event)).toEqual(["approval-decided"]);
    await resumed.cancel();
    await harness.client.cancel(other.runId);
  });

  it("a tenant token naming another tenant gets 403; ?after=0 replays the events kept", async () => {
    const forbidden = await open(tokens.at(-1)!.token, {}, "?tenant=default");
    expect(forbidden.status).toBe(403);
    expect(((await forbidden.json()) as { error: { code: string } }).error.code).toBe("TG_FORBIDDEN");
    const all = new SseReader((await open(apiTestTokens.admin.token, {}, "?after=0")).body!);
    const first = await all.readUntilEvent("approval-requested");
    expect(first).toBeDefined();
    await all.cancel();
  });

  it("refuses a malformed id (422) and a third stream of one token (429)", async () => {
    const bad = await open(apiTestTokens.approvalReader.token, { "last-event-id": "nope" });
    expect(bad.status).toBe(422);
    const first = await open(apiTestTokens.approvalReader.token);
    const second = await open(apiTestTokens.approvalReader.token);
    const third = await open(apiTestTokens.approvalReader.token);
    expect([first.status, second.status, third.status]).toEqual([200, 200, 429]);
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe("TG_RATE_LIMITED");
    await first.body!.cancel();
    await second.body!.cancel();
    // The places come back once the streams closed.
    await waitUntil(async () => {
      const again = await open(apiTestTokens.approvalReader.token);
      if (again.status !== 200) return false;
      await again.body!.cancel();
      return true;
    });
  });
});
