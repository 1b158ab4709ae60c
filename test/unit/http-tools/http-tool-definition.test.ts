import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TollgateError } from "../../../src/errors/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { httpTool, type IHttpToolDefinition } from "../../../src/http-tools/index.js";

const secret = `whsec_${Buffer.alloc(32, 1).toString("base64")}`;
const env = { TOOL_SECRET: secret, BILLING_TOKEN: "t0ken" };
const base: IHttpToolDefinition = {
  name: "lookup_order",
  description: "Looks an order up.",
  inputSchema: z.object({ orderId: z.string() }),
  url: "https://orders.internal.example/tools/lookup",
  signingSecretEnv: "TOOL_SECRET",
};

function configError(run: () => unknown): TollgateError {
  try {
    run();
  } catch (error) {
    expect(TollgateError.is(error, "TG_INVALID_CONFIG")).toBe(true);
    return error as TollgateError;
  }
  throw new Error("no error was thrown");
}

describe("httpTool", () => {
  it("defines a tool of the contract: inline, with its endpoint for the gateway to check", () => {
    const tool = httpTool(
      { ...base, method: "PUT", tags: ["orders"], timeoutMs: 5_000, readOnly: true, idempotent: true },
      { env },
    );
    expect(tool).toMatchObject({
      name: "lookup_order",
      tags: ["orders"],
      readOnly: true,
      idempotent: true,
      timeoutMs: 5_000,
      isolation: "inline",
      http: { url: base.url, method: "PUT", allowPrivateAddresses: false },
    });
    expect(typeof tool.execute).toBe("function");
  });

  it.each([
    ["an URL that is not http(s)", { url: "ftp://orders.example/x" }, "url"],
    ["an URL that does not parse", { url: "not a url" }, "url"],
    ["credentials in the URL", { url: "https://user:pass@orders.example/x" }, "url"],
    ["a method without a body", { method: "GET" }, "method"],
    ["a header Tollgate sets", { headers: { "Idempotency-Key": "x" } }, "headers.Idempotency-Key"],
    [
      "a header variable that is not set",
      { headers: { authorization: { env: "NOT_SET" } } },
      "headers.authorization",
    ],
    ["a signing secret variable that is not set", { signingSecretEnv: "NOT_SET" }, "signingSecretEnv"],
    ["a signing secret that is too short", { signingSecretEnv: "BILLING_TOKEN" }, "signingSecretEnv"],
    ["a misspelt key", { timeoutMS: 10 }, "timeoutMS"],
    ["execute of its own", { execute: async () => 1 }, "execute"],
    ["a zero response cap", { maxResponseBytes: 0 }, "maxResponseBytes"],
  ])("refuses %s with TG_INVALID_CONFIG naming the field", (_what, change, path) => {
    const error = configError(() => httpTool({ ...base, ...change } as IHttpToolDefinition, { env }));
    expect(error.details?.issues?.map((issue) => issue.path)).toContain(path);
    // The secret's value is never in the message.
    expect(error.message).not.toContain("t0ken");
  });

  it("wraps a plain JSON Schema with jsonSchemaInput; one that does not compile stops the gateway", () => {
    const schema = { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] };
    const tool = httpTool({ ...base, inputSchema: schema }, { env });
    expect(tool.inputSchema).toMatchObject({ kind: "json-schema", jsonSchema: schema });
    const broken = httpTool({ ...base, inputSchema: { type: "array" } }, { env });
    const error = (() => {
      try {
        defineGateway({ tools: [broken], httpTools: { allowedHosts: ["orders.internal.example"] } });
      } catch (caught) {
        return caught;
      }
    })();
    expect(TollgateError.is(error, "TG_INVALID_TOOL_DEFINITION")).toBe(true);
  });

  it("reads header values from the environment with their prefix", async () => {
    const tool = httpTool(
      { ...base, headers: { authorization: { env: "BILLING_TOKEN", prefix: "Bearer " } } },
      { env },
    );
    expect(tool.http?.url).toBe(base.url);
  });
});

describe("the gateway's allow-list of hosts", () => {
  const tool = (url: string) => httpTool({ ...base, url }, { env });

  it("refuses an HTTP tool whose host is not on httpTools.allowedHosts", () => {
    const error = configError(() =>
      defineGateway({
        tools: [tool("https://elsewhere.example/x")],
        httpTools: { allowedHosts: ["orders.internal.example"] },
      }),
    );
    expect(error.details?.issues).toEqual([
      { path: "tools.lookup_order.url", message: "elsewhere.example is not on httpTools.allowedHosts" },
    ]);
    configError(() => defineGateway({ tools: [tool("https://orders.internal.example/x")] }));
  });

  it.each([
    ["orders.internal.example", "https://orders.internal.example/x"],
    ["ORDERS.internal.example", "https://orders.internal.example:8443/x"],
    ["*.internal.example", "https://orders.internal.example/x"],
    ["10.0.0.7", "http://10.0.0.7/x"],
    ["[fd00::7]", "http://[fd00::7]:8080/x"],
    ["fd00::7", "http://[fd00::7]/x"],
  ])("%s allows %s", (allowed, url) => {
    expect(() => defineGateway({ tools: [tool(url)], httpTools: { allowedHosts: [allowed] } })).not.toThrow();
  });

  it.each([
    ["*.internal.example", "https://internal.example/x"],
    ["orders.internal.example", "https://orders.internal.example.evil.test/x"],
    ["internal.example", "https://orders.internal.example/x"],
  ])("%s does not allow %s", (allowed, url) => {
    configError(() => defineGateway({ tools: [tool(url)], httpTools: { allowedHosts: [allowed] } }));
  });

  it.each(["https://orders.example", "orders.example:443", "orders.example/x", "user@orders.example"])(
    "refuses %s as an allow-list entry",
    (entry) => {
      expect(() => defineGateway({ tools: [], httpTools: { allowedHosts: [entry] } })).toThrow(
        /allowedHosts/,
      );
    },
  );
});
