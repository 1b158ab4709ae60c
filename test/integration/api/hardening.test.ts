import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { bearer, createApiFixture, type IApiFixture, userContext } from "./api-fixture.js";

const admin = bearer("admin");
const writer = bearer("writer");

/** `{"a":{"a":...1...}}` nested `depth` deep, as text: building it as an object would not serialise. */
function nestedJson(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

describe("API hardening: defaults, limits and envelopes", () => {
  let fixture: IApiFixture;
  beforeAll(async () => {
    fixture = await createApiFixture("api-hardening", { askMaxWaitMs: 10_000 });
  });
  afterAll(() => fixture.close());

  const postRaw = (url: string, body: string, headers: Record<string, string> = admin) =>
    fixture.app.inject({
      method: "POST",
      url,
      headers: { ...headers, "content-type": "application/json" },
      payload: body,
    });

  it("a run without userContext acts for the token's subject", async () => {
    const response = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: writer,
      payload: { input: "for myself" },
    });
    expect(response.statusCode).toBe(202);
    const stored = await clientInternals(fixture.harness.client)
      .runtimeOf(response.json().runId)
      .runs.load(response.json().runId);
    expect(stored?.state.request.userContext).toEqual({ userId: "svc-writer" });
  });

  it("refuses unknown userContext keys", async () => {
    const response = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: admin,
      payload: { input: "hello", userContext: { userId: "u", userID: "typo" } },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details.issues).toEqual([
      { path: "userContext", message: expect.stringContaining("userID") },
    ]);
  });

  it.each([
    ["metadata", (deep: string) => `{"input":"x","userContext":{"userId":"u"},"metadata":{"d":${deep}}}`],
    [
      "userContext.attributes",
      (deep: string) => `{"input":"x","userContext":{"userId":"u","attributes":{"d":${deep}}}}`,
    ],
  ])("refuses %s nested 5,000 deep with 422 naming the path", async (field, body) => {
    for (const url of ["/v1/runs", "/v1/ask"]) {
      const response = await postRaw(url, body(nestedJson(5_000)));
      expect(response.statusCode).toBe(422);
      const { error } = response.json();
      expect(error.code).toBe("TG_INVALID_REQUEST");
      expect(error.details.issues[0].path).toMatch(new RegExp(`^${field.replace(".", "\\.")}\\.d(\\.a)+$`));
      expect(error.details.issues[0].message).toBe("nested deeper than 32 levels");
    }
    // 32 levels are fine.
    expect((await postRaw("/v1/runs", body(nestedJson(30)))).statusCode).toBe(202);
  });

  it("answers 422, never 500, to free JSON nested 10,000 deep in any route that takes it, and stores nothing", async () => {
    const finished = await fixture.harness.client.ask({
      input: script({ calls: [{ name: "add", input: { a: 1, b: 2 } }] }, { text: "3" }),
      userContext,
    });
    const { runId } = finished;
    const callId = finished.toolResults[0]!.callId;
    const parked = await fixture.harness.client.run({
      input: script(
        { calls: [{ name: "send_email", input: { to: "deep@example.com", subject: "Hi" } }] },
        { text: "sent" },
      ),
      userContext,
    });
    const approvalId = await waitUntil(
      async () => (await fixture.harness.client.getRun(parked.runId)).pendingApprovals[0]?.approvalId,
    );
    const runsBefore = (await fixture.harness.client.listRuns({ limit: 500 })).runs.length;
    const deep = nestedJson(10_000);
    const cases: Array<[string, string, string]> = [
      [`/v1/runs/${runId}/fork`, `{"fromCallId":"${callId}","input":{"a":${deep}}}`, "TG_FORK_INVALID_INPUT"],
      [`/v1/approvals/${approvalId}/approve`, `{"input":{"a":${deep}}}`, "TG_APPROVAL_INVALID_EDIT"],
      [
        "/v1/runs",
        `{"input":"x","userContext":{"userId":"u"},"output":{"schema":{"type":"object","d":${deep}}}}`,
        "TG_INVALID_REQUEST",
      ],
      [
        `/v1/runs/${runId}/rerun`,
        `{"userContext":{"userId":"u","attributes":{"d":${deep}}}}`,
        "TG_INVALID_REQUEST",
      ],
      [
        "/v1/schedules",
        `{"everyMs":60000,"request":{"input":"x","userContext":{"userId":"u"},"metadata":{"d":${deep}}}}`,
        "TG_INVALID_REQUEST",
      ],
    ];
    for (const [url, body, code] of cases) {
      const response = await postRaw(url, body);
      expect({ url, status: response.statusCode, code: response.json().error?.code }).toEqual({
        url,
        status: 422,
        code,
      });
    }
    expect((await fixture.harness.client.listRuns({ limit: 500 })).runs.length).toBe(runsBefore);
    expect((await fixture.harness.client.schedules.list({})).schedules).toEqual([]);
    expect((await fixture.harness.client.getRun(parked.runId)).pendingApprovals).toHaveLength(1);
  });

  it("answers over-long path ids and bad percent-encoding in the error envelope", async () => {
    const accepted = await fixture.app.inject({
      method: "GET",
      url: `/v1/runs/${"a".repeat(150)}`,
      headers: admin,
    });
    expect(accepted.statusCode).toBe(404);
    expect(accepted.json().error.code).toBe("TG_RUN_NOT_FOUND");

    const tooLong = await fixture.app.inject({
      method: "GET",
      url: `/v1/runs/${"a".repeat(300)}`,
      headers: admin,
    });
    expect(tooLong.statusCode).toBe(422);
    expect(tooLong.json()).toEqual({
      error: {
        code: "TG_INVALID_REQUEST",
        message: expect.any(String),
        details: { in: "params", issues: [expect.any(Object)] },
      },
    });
    const tooLongApproval = await fixture.app.inject({
      method: "POST",
      url: `/v1/approvals/${"b".repeat(300)}/approve`,
      headers: admin,
    });
    expect(tooLongApproval.json().error.code).toBe("TG_INVALID_REQUEST");

    const badEncoding = await fixture.app.inject({ method: "GET", url: "/v1/runs/%E0%A4%A", headers: admin });
    expect(badEncoding.statusCode).toBe(400);
    expect(badEncoding.json()).toEqual({
      error: {
        code: "TG_BAD_REQUEST",
        message: expect.any(String),
        details: { fastifyCode: "FST_ERR_BAD_URL" },
      },
    });
  });

  it("the OpenAPI document's ask timeout bound is the one the server enforces", async () => {
    const document = (await fixture.app.inject({ method: "GET", url: "/v1/openapi.json" })).json();
    const timeout =
      document.paths["/v1/ask"].post.requestBody.content["application/json"].schema.properties.timeoutMs;
    expect(timeout.maximum).toBe(10_000);
    const ask = (timeoutMs: number) =>
      fixture.app.inject({
        method: "POST",
        url: "/v1/ask",
        headers: admin,
        payload: { input: "x", userContext, timeoutMs },
      });
    expect((await ask(10_001)).statusCode).toBe(422);
    const atBound = await ask(timeout.maximum);
    expect(atBound.statusCode).toBe(200);
  });

  it("x-request-id is a UUID, or the caller's own when it is a plausible id", async () => {
    const first = await fixture.app.inject({ method: "GET", url: "/healthz" });
    const second = await fixture.app.inject({ method: "GET", url: "/healthz" });
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    expect(first.headers["x-request-id"]).toMatch(uuid);
    expect(second.headers["x-request-id"]).toMatch(uuid);
    expect(first.headers["x-request-id"]).not.toBe(second.headers["x-request-id"]);

    const echoed = await fixture.app.inject({
      method: "GET",
      url: "/healthz",
      headers: { "x-request-id": "edge-42.a:b_c" },
    });
    expect(echoed.headers["x-request-id"]).toBe("edge-42.a:b_c");
    const refused = await fixture.app.inject({
      method: "GET",
      url: "/healthz",
      headers: { "x-request-id": "has spaces <x>" },
    });
    expect(refused.headers["x-request-id"]).toMatch(uuid);
  });
});
