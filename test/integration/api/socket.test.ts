import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IRunningApi, startApi } from "../../../src/api/index.js";
import { followerConnectionName } from "../../../src/runtime/event-followers.js";
import { clientListLines } from "../../helpers/deployment-nodes.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { apiTestGateway, apiTestTokens, bearer, silentLogger, userContext } from "./api-fixture.js";
import { SseReader } from "./sse-reader.js";

const json = { "content-type": "application/json" };

describe("API over a real socket", () => {
  let harness: IHarness;
  let api: IRunningApi;
  beforeAll(async () => {
    harness = await createHarness(apiTestGateway, "api-socket");
    await harness.startWorker();
    api = await startApi({
      client: harness.client,
      tokens: Object.values(apiTestTokens),
      logger: silentLogger(),
      port: 0,
      host: "127.0.0.1",
      sseHeartbeatMs: 200,
    });
  });
  afterAll(async () => {
    await api.close();
    await harness.close();
  });

  async function enqueueParkedRun(): Promise<string> {
    const response = await fetch(`${api.url}/v1/runs`, {
      method: "POST",
      headers: { ...json, ...bearer("writer") },
      body: JSON.stringify({
        input: script(
          { calls: [{ name: "send_email", input: { to: "sock@example.com", subject: "Hi" } }] },
          { text: "all sent" },
        ),
        userContext,
      }),
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { runId: string }).runId;
  }

  function openEvents(runId: string, headers: Record<string, string> = {}, signal?: AbortSignal) {
    return fetch(`${api.url}/v1/runs/${runId}/events`, {
      headers: { ...bearer("reader"), accept: "text/event-stream", ...headers },
      ...(signal ? { signal } : {}),
    });
  }

  /**
   * Connections that follow live runs for this test's client (its prefix is unique, its Redis shared),
   * in any of its partitions.
   */
  const followerConnections = async () => {
    const names = clientInternals(harness.client).partitions.all.map(
      (runtime) => `name=${followerConnectionName(runtime.keys.prefix)} `,
    );
    // On the deployment's own Redis: one node, or every master of the cluster under `npm run test:cluster`.
    return (await clientListLines(clientInternals(harness.client).runtime.redis)).filter((line) =>
      names.some((name) => line.includes(name)),
    ).length;
  };

  it("serves JSON routes and auth errors", async () => {
    const health = await fetch(`${api.url}/healthz`);
    expect(health.status).toBe(200);
    expect(api.url).toBe(`http://127.0.0.1:${api.port}`);
    const unauthorised = await fetch(`${api.url}/v1/tools`);
    expect(unauthorised.status).toBe(401);
    expect(unauthorised.headers.get("www-authenticate")).toBe('Bearer realm="tollgate"');
    expect(await unauthorised.json()).toEqual({
      error: { code: "TG_UNAUTHORIZED", message: expect.any(String) },
    });
    const malformed = await fetch(`${api.url}/v1/runs`, {
      method: "POST",
      headers: { ...json, ...bearer("writer") },
      body: "{not json",
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe("TG_BAD_REQUEST");
    const tooLarge = await fetch(`${api.url}/v1/runs`, {
      method: "POST",
      headers: { ...json, ...bearer("writer") },
      body: JSON.stringify({ input: "x".repeat(1_100_000), userContext }),
    });
    expect(tooLarge.status).toBe(413);
    expect(((await tooLarge.json()) as { error: { code: string } }).error.code).toBe("TG_PAYLOAD_TOO_LARGE");
  });

  it("streams a run with an approval until run-finished, then resumes after Last-Event-ID", async () => {
    const runId = await enqueueParkedRun();
    const response = await openEvents(runId);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const stream = new SseReader(response.body!);
    const parked = await stream.readUntilEvent("tool-call-parked");
    const { approvalId } = JSON.parse(parked!.data!).data as { approvalId: string };

    const approved = await fetch(`${api.url}/v1/approvals/${approvalId}/approve`, {
      method: "POST",
      headers: bearer("approver"),
    });
    expect(approved.status).toBe(200);
    expect(await stream.readUntilEvent("run-finished")).toBeDefined();
    await stream.readToEnd();
    expect(stream.ended).toBe(true);

    const types = stream.events.map((event) => event.event);
    expect(types[0]).toBe("run-queued");
    expect(types).toEqual(expect.arrayContaining(["tool-call-parked", "approval-decided", "run-finished"]));
    expect(types.indexOf("approval-decided")).toBeGreaterThan(types.indexOf("tool-call-parked"));
    const decided = stream.events.find((event) => event.event === "approval-decided")!;
    expect(JSON.parse(decided.data!).data).toMatchObject({
      approvalId,
      approver: "alice",
      decision: "approved",
    });

    const parkedIndex = stream.events.indexOf(parked!);
    const resumedResponse = await openEvents(runId, { "last-event-id": parked!.id! });
    const resumed = new SseReader(resumedResponse.body!);
    await resumed.readToEnd();
    expect(resumed.events.map((event) => event.id)).toEqual(
      stream.events.slice(parkedIndex + 1).map((event) => event.id),
    );
    expect(resumed.events.at(-1)?.event).toBe("run-finished");
  });

  it("sends heartbeat comments and closes the shared follower connection when its last client leaves", async () => {
    const before = await followerConnections();
    const runId = await enqueueParkedRun();
    const disconnect = new AbortController();
    const response = await openEvents(runId, {}, disconnect.signal);
    const stream = new SseReader(response.body!);
    await stream.readUntilEvent("tool-call-parked");
    await stream.readComment("heartbeat");
    await waitUntil(async () => (await followerConnections()) > before, { message: "follower connected" });
    disconnect.abort();
    await waitUntil(async () => (await followerConnections()) === before, { message: "follower closed" });
  });

  it("close() ends open event streams and stops the server", async () => {
    const second = await startApi({
      client: harness.client,
      tokens: [apiTestTokens.admin],
      logger: silentLogger(),
      port: 0,
      host: "127.0.0.1",
    });
    const runId = await enqueueParkedRun();
    const response = await fetch(`${second.url}/v1/runs/${runId}/events`, { headers: bearer("admin") });
    const stream = new SseReader(response.body!);
    await stream.readUntilEvent("tool-call-parked");
    const followersBefore = await followerConnections();
    const started = Date.now();
    await second.close();
    expect(Date.now() - started).toBeLessThan(3_000);
    await stream.readToEnd(3_000);
    expect(stream.ended).toBe(true);
    await waitUntil(async () => (await followerConnections()) < followersBefore, {
      message: "the stream's follower connection closed",
    });
    await expect(fetch(`${second.url}/healthz`)).rejects.toThrow();
    // The client is the harness's (ownsClient unset): it still works.
    expect(await clientInternals(harness.client).runtime.redis.ping()).toBe("PONG");
  });
});
