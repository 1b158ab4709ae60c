import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import { bearer, createApiFixture, type IApiFixture, userContext } from "./api-fixture.js";
import { captureLogger } from "./capture-logger.js";

const admin = bearer("admin");

describe("API validation and errors", () => {
  let fixture: IApiFixture;
  let logText: () => string;
  beforeAll(async () => {
    const captured = captureLogger();
    logText = captured.text;
    fixture = await createApiFixture("api-validation", { askMaxWaitMs: 10_000, logger: captured.logger });
    // Test-only routes, registered before the app is ready, to provoke internal errors.
    fixture.app.get("/test/plain-error", async () => {
      throw new Error("secret detail: password=hunter2");
    });
    fixture.app.get("/test/internal-tollgate-error", async () => {
      throw new TollgateError("TG_STATE_CORRUPT", "run run_1 state: field x is bad");
    });
  });
  afterAll(() => fixture.close());

  const postRun = (payload: unknown, headers: Record<string, string> = {}) =>
    fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: { ...admin, ...headers },
      payload: payload as object,
    });

  it("names a userContext without userId", async () => {
    const response = await postRun({ input: "hello", userContext: {} });
    expect(response.statusCode).toBe(422);
    const { error } = response.json();
    expect(error.code).toBe("TG_INVALID_REQUEST");
    expect(error.details.in).toBe("body");
    expect(error.details.issues).toEqual([{ path: "userContext.userId", message: expect.any(String) }]);
  });

  it("names a missing userId inside userContext", async () => {
    const response = await postRun({ input: "hello", userContext: {} });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details.issues).toEqual([
      { path: "userContext.userId", message: expect.any(String) },
    ]);
  });

  it("names an empty input", async () => {
    const response = await postRun({ input: "", userContext });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details.issues).toEqual([{ path: "input", message: "must not be empty" }]);
  });

  it.each([0, 101, 1.5, "3"])("names a bad maxSteps (%s)", async (maxSteps) => {
    const response = await postRun({ input: "hello", userContext, maxSteps });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details.issues.map((issue: { path: string }) => issue.path)).toEqual([
      "maxSteps",
    ]);
  });

  it("refuses an unknown tool with TG_UNKNOWN_TOOL", async () => {
    const response = await postRun({ input: "hello", userContext, tools: ["add", "no_such_tool"] });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.code).toBe("TG_UNKNOWN_TOOL");
    const extra = await postRun({ input: "hello", userContext, additionalTools: ["nope"] });
    expect(extra.statusCode).toBe(422);
    expect(extra.json().error.code).toBe("TG_UNKNOWN_TOOL");
  });

  it("refuses unknown fields, including the idempotency key, which is a header", async () => {
    const response = await postRun({ input: "hello", userContext, idempotencyKey: "k", colour: "red" });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details.issues[0].message).toMatch(
      /idempotencyKey.*colour|colour.*idempotencyKey/,
    );
  });

  it("answers 400 TG_BAD_REQUEST to malformed JSON", async () => {
    const response = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: { ...admin, "content-type": "application/json" },
      payload: '{"input": "hello", ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe("TG_BAD_REQUEST");
  });

  it("answers 400 TG_BAD_REQUEST to a body that is not JSON", async () => {
    const response = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: { ...admin, "content-type": "text/plain" },
      payload: "hello",
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe("TG_BAD_REQUEST");
  });

  it.each([
    ['{"input":"x","userContext":{"userId":"u"},"__proto__":{"admin":true}}', "__proto__", "__proto__"],
    [
      '{"input":"x","userContext":{"userId":"u"},"metadata":{"tags":[{"__proto__":{"admin":true}}]}}',
      "__proto__",
      "metadata.tags.0.__proto__",
    ],
    [
      '{"input":"x","userContext":{"userId":"u"},"metadata":{"constructor":{"prototype":{"admin":true}}}}',
      "constructor.prototype",
      "metadata.constructor.prototype",
    ],
  ])(
    "answers 400 naming the key and where it is to a JSON body with %s, storing nothing",
    async (payload, key, path) => {
      const runsBefore = (await fixture.harness.client.listRuns({ limit: 500 })).runs.length;
      const response = await fixture.app.inject({
        method: "POST",
        url: "/v1/runs",
        headers: { ...admin, "content-type": "application/json" },
        payload,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toEqual({
        code: "TG_BAD_REQUEST",
        message: expect.stringContaining(`"${key}" key (at ${path})`),
        details: { key, path },
      });
      expect((await fixture.harness.client.listRuns({ limit: 500 })).runs.length).toBe(runsBefore);
      // A key that only contains the word is an ordinary key.
      const plain = await fixture.app.inject({
        method: "POST",
        url: "/v1/runs",
        headers: { ...admin, "content-type": "application/json" },
        payload: '{"input":"x","userContext":{"userId":"u"},"metadata":{"my__proto__":1,"constructor":"c"}}',
      });
      expect(plain.statusCode).toBe(202);
    },
  );

  it("still answers malformed JSON as such", async () => {
    const response = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: { ...admin, "content-type": "application/json" },
      payload: '{"input":"x",',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: "TG_BAD_REQUEST",
      details: { fastifyCode: "FST_ERR_CTP_INVALID_JSON_BODY" },
    });
  });

  it("answers 422 naming the body when a required body is empty", async () => {
    const response = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: { ...admin, "content-type": "application/json" },
      payload: "",
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details.issues[0].path).toBe("");
  });

  it("answers 413 TG_PAYLOAD_TOO_LARGE to a body over the limit", async () => {
    const response = await postRun({ input: "x".repeat(1024 * 1024 + 10), userContext });
    expect(response.statusCode).toBe(413);
    expect(response.json().error.code).toBe("TG_PAYLOAD_TOO_LARGE");
  });

  it("answers 413 to an input over the gateway's maxInputChars", async () => {
    const response = await postRun({ input: "x".repeat(100_001), userContext });
    expect(response.statusCode).toBe(413);
    expect(response.json().error).toMatchObject({
      code: "TG_PAYLOAD_TOO_LARGE",
      details: { issues: [{ path: "input" }] },
    });
  });

  it("refuses an Idempotency-Key over 256 characters, naming the header", async () => {
    const response = await postRun({ input: "hello", userContext }, { "idempotency-key": "k".repeat(257) });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details).toMatchObject({
      in: "headers",
      issues: [{ path: "idempotency-key" }],
    });
  });

  it("refuses an ask that would wait longer than askMaxWaitMs", async () => {
    const response = await fixture.app.inject({
      method: "POST",
      url: "/v1/ask",
      headers: admin,
      payload: { input: "hello", userContext, timeoutMs: 10_001 },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details.issues).toEqual([
      { path: "timeoutMs", message: "must be at most 10000 on this server" },
    ]);
  });

  it("names bad approve and reject bodies", async () => {
    const comment = await fixture.app.inject({
      method: "POST",
      url: "/v1/approvals/appr_1/approve",
      headers: admin,
      payload: { comment: 5 },
    });
    expect(comment.statusCode).toBe(422);
    expect(comment.json().error.details.issues[0].path).toBe("comment");
    const notAnObject = await fixture.app.inject({
      method: "POST",
      url: "/v1/approvals/appr_1/approve",
      headers: admin,
      payload: [1, 2],
    });
    expect(notAnObject.statusCode).toBe(422);
    const reason = await fixture.app.inject({
      method: "POST",
      url: "/v1/approvals/appr_1/reject",
      headers: admin,
      payload: { reason: "x".repeat(10_001) },
    });
    expect(reason.statusCode).toBe(422);
    expect(reason.json().error.details.issues[0].path).toBe("reason");
  });

  it("does not let a caller name the approver", async () => {
    const response = await fixture.app.inject({
      method: "POST",
      url: "/v1/approvals/appr_1/approve",
      headers: admin,
      payload: { approver: "mallory" },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details.issues[0].message).toContain("approver");
  });

  it("names unknown query parameters and bad event ids", async () => {
    const query = await fixture.app.inject({ method: "GET", url: "/v1/approvals?user=u1", headers: admin });
    expect(query.statusCode).toBe(422);
    expect(query.json().error.details.in).toBe("querystring");
    const after = await fixture.app.inject({
      method: "GET",
      url: "/v1/runs/run_1/events?after=yesterday",
      headers: admin,
    });
    expect(after.statusCode).toBe(422);
    expect(after.json().error.details).toMatchObject({ in: "querystring", issues: [{ path: "after" }] });
    const header = await fixture.app.inject({
      method: "GET",
      url: "/v1/runs/run_1/events",
      headers: { ...admin, "last-event-id": "not-an-id" },
    });
    expect(header.statusCode).toBe(422);
    expect(header.json().error.details).toMatchObject({ in: "headers", issues: [{ path: "last-event-id" }] });
  });

  it("answers 404 TG_ROUTE_NOT_FOUND to unknown routes and methods", async () => {
    for (const [method, url] of [
      ["GET", "/v1/nothing"],
      ["GET", "/v1/ask"],
      ["DELETE", "/v1/runs/run_1"],
    ] as const) {
      const response = await fixture.app.inject({ method, url, headers: admin });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe("TG_ROUTE_NOT_FOUND");
    }
  });

  it("answers 404 to unknown runs and approvals", async () => {
    const run = await fixture.app.inject({ method: "GET", url: "/v1/runs/run_nope", headers: admin });
    expect(run.statusCode).toBe(404);
    expect(run.json().error.code).toBe("TG_RUN_NOT_FOUND");
    const events = await fixture.app.inject({
      method: "GET",
      url: "/v1/runs/run_nope/events",
      headers: admin,
    });
    expect(events.statusCode).toBe(404);
    expect(events.json().error.code).toBe("TG_RUN_NOT_FOUND");
    for (const url of [
      "/v1/approvals/appr_nope",
      "/v1/approvals/appr_nope/approve",
      "/v1/approvals/appr_nope/reject",
    ]) {
      const response = await fixture.app.inject({
        method: url.endsWith("nope") ? "GET" : "POST",
        url,
        headers: admin,
      });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe("TG_APPROVAL_NOT_FOUND");
    }
  });

  it("hides an internal error's text: 500 TG_INTERNAL, the detail in the log", async () => {
    const response = await fixture.app.inject({ method: "GET", url: "/test/plain-error" });
    expect(response.statusCode).toBe(500);
    const { error } = response.json();
    expect(error.code).toBe("TG_INTERNAL");
    expect(response.body).not.toContain("secret detail");
    expect(response.body).not.toContain("hunter2");
    expect(response.body).not.toMatch(/at .*\.ts:\d+/);
    expect(error.details.requestId).toBe(response.headers["x-request-id"]);
    expect(logText()).toContain("secret detail");
  });

  it("hides the message of a 500 TollgateError but keeps its code", async () => {
    const response = await fixture.app.inject({ method: "GET", url: "/test/internal-tollgate-error" });
    expect(response.statusCode).toBe(500);
    expect(response.json().error.code).toBe("TG_STATE_CORRUPT");
    expect(response.body).not.toContain("field x is bad");
  });
});
