import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { testRedisUrl } from "../helpers/redis-url.js";
import { deletePrefix, uniquePrefix } from "../helpers/test-prefix.js";
import { type ICliProcess, logFields, startCli } from "./cli-process.js";

/*
 * `tollgate api --insecure` as the error for missing tokens tells an operator to run it: with no tokens
 * anywhere every request acts as the anonymous admin; with tokens configured the flag is ignored, said
 * in the log, and tokens are required as ever.
 */

const gateway = "test/fixtures/test-gateway.ts";
const isMessage = (message: string) => (line: string) => logFields(line)?.msg === message;

describe("tollgate api --insecure", () => {
  const prefix = uniquePrefix("e2e-insecure");
  const started: ICliProcess[] = [];

  async function startApi(env: Record<string, string>): Promise<{ api: ICliProcess; url: string }> {
    const api = startCli(["api", "--gateway", gateway, "--port", "0", "--host", "127.0.0.1", "--insecure"], {
      REDIS_URL: testRedisUrl,
      TOLLGATE_PREFIX: prefix,
      LOG_LEVEL: "info",
      ...env,
    });
    started.push(api);
    const listening = await api.waitForLine(isMessage("tollgate api listening"));
    return { api, url: String(logFields(listening)?.url) };
  }

  afterAll(async () => {
    await Promise.allSettled(started.map((api) => api.stop("SIGKILL")));
    await deletePrefix(prefix);
  });

  it("with no tokens configured, serves every request as the anonymous admin", async () => {
    const { api, url } = await startApi({});
    const me = await fetch(`${url}/v1/me`);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ subject: "anonymous" });
    expect((await fetch(`${url}/v1/tools`)).status).toBe(200);
    expect(api.output()).toContain("the API is INSECURE");
    expect(api.output()).not.toContain("insecure is ignored");
  });

  it("with tokens configured, ignores the flag, says so, and still requires a token", async () => {
    const token = randomBytes(24).toString("base64url");
    const { api, url } = await startApi({
      TOLLGATE_API_TOKENS: JSON.stringify([{ token, subject: "svc", roles: ["runs:read"] }]),
    });
    await api.waitForLine((line) => /--insecure is ignored/.test(String(logFields(line)?.msg)), 10_000);
    expect((await fetch(`${url}/v1/tools`)).status).toBe(401);
    expect((await fetch(`${url}/v1/tools`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
  });
});
