import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleContentSecurityPolicy } from "../../../src/api/console/console-routes.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { bearer, createApiFixture, type IApiFixture } from "./api-fixture.js";

describe("the console's routes", () => {
  let fixture: IApiFixture;
  beforeAll(async () => {
    fixture = await createApiFixture("api-console");
  });
  afterAll(() => fixture.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    fixture.app.inject({ method: "GET", url, headers });

  it("GET /v1/me says who the token is and what it may do, roles expanded", async () => {
    expect((await get("/v1/me", bearer("approvalReader"))).json()).toEqual({
      subject: "auditor",
      tenant: "default",
      roles: ["approvals:read"],
      access: ["approvals:read"],
    });
    expect((await get("/v1/me", bearer("admin"))).json()).toEqual({
      subject: "root",
      tenant: "default",
      roles: ["admin"],
      access: ["runs:write", "runs:read", "approvals:read", "approvals:decide", "admin"],
    });
    expect((await get("/v1/me")).statusCode).toBe(401);
  });

  it("the transcript of an approval's run: the user message, earlier results, and the reply that parked the call", async () => {
    const { runId } = await fixture.harness.client.run({
      input: script(
        { calls: [{ name: "add", input: { a: 2, b: 3 } }] },
        {
          calls: [
            { name: "add", input: { a: 1, b: 1 } },
            { name: "send_email", input: { to: "ada@example.com", subject: "Your sum" } },
          ],
        },
        { text: "done" },
      ),
      userContext: { userId: "u-transcript" },
    });
    const approval = await waitUntil(async () => (await fixture.harness.client.approvals.list({ runId }))[0]);
    const response = await get(`/v1/approvals/${approval.approvalId}/transcript`, bearer("approvalReader"));
    expect(response.statusCode).toBe(200);
    const transcript = response.json();
    expect(transcript).toMatchObject({ runId, userId: "u-transcript", history: [] });
    expect(transcript.messages.map((message: { role: string }) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(transcript.messages[2]).toMatchObject({ toolName: "add", content: expect.stringContaining("5") });
    expect(transcript.messages[3].toolCalls.map((call: { name: string }) => call.name)).toEqual([
      "add",
      "send_email",
    ]);

    // A token that may not read approvals may not read it either; an unknown id is 404.
    expect((await get(`/v1/approvals/${approval.approvalId}/transcript`, bearer("reader"))).statusCode).toBe(
      403,
    );
    const unknown = await get("/v1/approvals/no-such-approval/transcript", bearer("approvalReader"));
    expect(unknown.json().error.code).toBe("TG_APPROVAL_NOT_FOUND");
    await fixture.harness.client.approvals.reject(approval.approvalId, { approver: "alice" });
  });

  it("serves the page with a strict Content-Security-Policy and no inline script or style", async () => {
    const redirect = await get("/console");
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers.location).toBe("/console/");
    const page = await get("/console/");
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    const policy = String(page.headers["content-security-policy"]);
    expect(policy).toBe(consoleContentSecurityPolicy);
    const directives = new Map(
      policy.split(";").map((directive) => {
        const [name = "", ...values] = directive.trim().split(/\s+/);
        return [name, values.join(" ")] as const;
      }),
    );
    expect(directives.get("default-src")).toBe("'self'");
    expect(directives.get("script-src")).toBe("'self'");
    expect(directives.get("style-src")).toBe("'self'");
    expect(directives.get("frame-ancestors")).toBe("'none'");
    expect(policy).not.toMatch(/unsafe-|https?:|\*|data:/);
    expect(page.headers["x-frame-options"]).toBe("DENY");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["referrer-policy"]).toBe("no-referrer");

    const html = page.body;
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="[^"/][^":]*"/);
      expect(body?.trim()).toBe("");
    }
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=|javascript:/i);
    for (const [, reference] of html.matchAll(/\b(?:src|href)="([^"]+)"/g)) {
      expect(reference, "a relative reference to this server").not.toMatch(/^(?:[a-z]+:|\/\/)/i);
    }
  });

  it("serves the modules with their types and validators, and nothing outside its directory", async () => {
    const module = await get("/console/js/app.js");
    expect(module.statusCode).toBe(200);
    expect(module.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(module.headers["content-security-policy"]).toBe(consoleContentSecurityPolicy);
    const again = await get("/console/js/app.js", { "if-none-match": String(module.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect((await get("/console/console.css")).headers["content-type"]).toBe("text/css; charset=utf-8");
    for (const path of [
      "/console/../package.json",
      "/console/%2e%2e/package.json",
      "/console/tsconfig.json",
      "/console/nope.js",
    ]) {
      const response = await get(path);
      expect(response.statusCode, path).toBe(404);
      expect(response.json().error.code).toBe("TG_ROUTE_NOT_FOUND");
    }
  });

  it("the page's files are small enough to load at once", async () => {
    const paths = ["/console/", "/console/console.css", "/console/js/app.js"];
    const sizes = await Promise.all(paths.map(async (path) => (await get(path)).rawPayload.length));
    expect(sizes.every((size) => size > 0)).toBe(true);
  });
});
