import { compileErrors, validate } from "@readme/openapi-parser";
import type { OpenAPIV3_1 } from "openapi-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes, buildOpenApiDocument } from "../../../src/api/index.js";
import { createApiFixture, type IApiFixture } from "./api-fixture.js";

const document = () => buildOpenApiDocument() as OpenAPIV3_1.Document;

/** The value at a path of nested objects, for reading the document without casts at every step. */
function at(value: unknown, ...keys: string[]): unknown {
  return keys.reduce<unknown>(
    (current, key) =>
      typeof current === "object" && current !== null ? (current as Record<string, unknown>)[key] : undefined,
    value,
  );
}

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await validate(document());
    expect(result.valid ? "valid" : compileErrors(result)).toBe("valid");
    expect(result.specification).toBe("OpenAPI");
    expect(document().openapi).toBe("3.1.0");
  });

  it("describes every route with its access, inputs and responses", () => {
    const { paths = {} } = document();
    for (const { spec } of apiRoutes) {
      const path = spec.url.replace(/:(\w+)/g, "{$1}");
      const method = spec.method.toLowerCase() as "get" | "post";
      const operation = paths[path]?.[method];
      expect(operation, `${spec.method} ${spec.url}`).toBeDefined();
      expect(operation?.operationId).toBe(spec.operationId);
      expect(Object.keys(operation?.responses ?? {})).toEqual(
        expect.arrayContaining([...Object.keys(spec.responses), "500"]),
      );
      if (spec.access === "public") expect(operation?.security).toEqual([]);
      else {
        expect(operation?.security).toBeUndefined();
        expect(Object.keys(operation?.responses ?? {})).toContain("401");
      }
      if (spec.schemas.body) {
        expect(operation?.requestBody).toBeDefined();
        expect(Object.keys(operation?.responses ?? {})).toEqual(
          expect.arrayContaining(["400", "413", "422"]),
        );
      }
    }
    expect(Object.keys(paths).sort()).toEqual(
      [...new Set(apiRoutes.map(({ spec }) => spec.url.replace(/:(\w+)/g, "{$1}")))].sort(),
    );
  });

  it("has the bearer security scheme and the request schemas of the routes", () => {
    const built = document();
    expect(built.security).toEqual([{ bearerAuth: [] }]);
    expect(at(built, "components", "securitySchemes", "bearerAuth")).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
    const createRun = at(built, "paths", "/v1/runs", "post");
    expect(at(createRun, "requestBody", "content", "application/json", "schema")).toMatchObject({
      type: "object",
      required: ["input"],
      additionalProperties: false,
      properties: { maxSteps: { type: "integer", minimum: 1, maximum: 100 } },
    });
    expect(at(createRun, "parameters")).toEqual([
      expect.objectContaining({ name: "idempotency-key", in: "header", required: false }),
    ]);
    const events = at(built, "paths", "/v1/runs/{runId}/events", "get");
    expect((at(events, "parameters") as Array<{ name: string }>).map((parameter) => parameter.name)).toEqual([
      "runId",
      "after",
      "format",
      "last-event-id",
    ]);
    expect(Object.keys(at(events, "responses", "200", "content") as object)).toEqual(["text/event-stream"]);
    expect(
      at(events, "responses", "200", "content", "text/event-stream", "schema", "properties", "data"),
    ).toMatchObject({
      contentMediaType: "application/json",
      contentSchema: { $ref: "#/components/schemas/RunEvent" },
    });
    const approvalEvents = at(built, "paths", "/v1/approvals/events", "get");
    expect(Object.keys(at(approvalEvents, "responses", "200", "content") as object)).toEqual([
      "text/event-stream",
    ]);
    expect(at(built, "components", "schemas", "ApprovalEvent")).toMatchObject({
      type: "object",
      required: expect.arrayContaining(["type", "approvalId", "runId", "tenant", "toolName", "at"]),
    });
    const listing = at(built, "paths", "/v1/approvals", "get");
    expect((at(listing, "parameters") as Array<{ name: string }>).map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(["status", "approver", "since", "until", "limit", "cursor"]),
    );
    expect(
      at(listing, "responses", "200", "content", "application/json", "schema", "properties", "nextCursor"),
    ).toMatchObject({ type: "string" });
    expect(
      at(
        built,
        "paths",
        "/v1/approvals/{approvalId}",
        "get",
        "responses",
        "200",
        "content",
        "application/json",
        "schema",
        "properties",
      ),
    ).toMatchObject({ diff: { type: "array" }, outcome: { type: "object" } });
    const approve = at(built, "paths", "/v1/approvals/{approvalId}/approve", "post", "responses") as object;
    expect(Object.keys(approve)).toEqual(
      ["200", "400", "401", "403", "404", "408", "409", "413", "422", "431", "500", "503"].sort(),
    );
  });

  describe("served at /v1/openapi.json", () => {
    let fixture: IApiFixture;
    beforeAll(async () => {
      fixture = await createApiFixture("api-openapi");
    });
    afterAll(() => fixture.close());

    it("without a token, the same document", async () => {
      const response = await fixture.app.inject({ method: "GET", url: "/v1/openapi.json" });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(document());
    });
  });
});
