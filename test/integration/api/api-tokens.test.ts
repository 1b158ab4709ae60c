import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenVerifier } from "../../../src/api/auth/token-verifier.js";
import { loadApiTokens, parseApiTokens } from "../../../src/api/index.js";
import { TollgateError } from "../../../src/errors/index.js";

const secret = "s3cret-token-value-0123456789";
const valid = JSON.stringify([
  { token: secret, subject: "alice", roles: ["runs:write", "approvals:decide"] },
  { token: "another-token-0123456789", subject: "ops", roles: ["admin"] },
]);

function configError(run: () => unknown): TollgateError {
  try {
    run();
  } catch (error) {
    if (TollgateError.is(error, "TG_INVALID_CONFIG")) return error;
    throw error;
  }
  throw new Error("expected TG_INVALID_CONFIG");
}

describe("parseApiTokens", () => {
  it("parses tokens with their subjects and roles; a token without a tenant is of the default tenant", () => {
    expect(parseApiTokens(valid)).toEqual([
      { token: secret, subject: "alice", roles: ["runs:write", "approvals:decide"], tenant: "default" },
      { token: "another-token-0123456789", subject: "ops", roles: ["admin"], tenant: "default" },
    ]);
  });

  it.each([
    ["not JSON", "[{token:", undefined],
    ["not a list", '{"token":"x"}', ""],
    ["a missing subject", `[{"token":"${secret}","roles":["admin"]}]`, "0.subject"],
    ["an unknown role", `[{"token":"${secret}","subject":"a","roles":["runs:delete"]}]`, "0.roles.0"],
    ["no roles", `[{"token":"${secret}","subject":"a","roles":[]}]`, "0.roles"],
    ["an empty token", '[{"token":"","subject":"a","roles":["admin"]}]', "0.token"],
    ["a misspelt field", `[{"token":"${secret}","subject":"a","role":["admin"]}]`, "0"],
    [
      "a token listed twice",
      `[{"token":"${secret}","subject":"a","roles":["admin"]},{"token":"${secret}","subject":"b","roles":["runs:read"]}]`,
      "1.token",
    ],
  ])("refuses %s, naming the field and never the token", (_case, json, path) => {
    const error = configError(() => parseApiTokens(json));
    if (path !== undefined) expect(error.details?.issues?.map((issue) => issue.path)).toContain(path);
    expect(JSON.stringify(error.toJSON())).not.toContain(secret);
    expect(error.message).not.toContain(secret);
  });
});

describe("loadApiTokens", () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "tollgate-tokens-"));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it("reads TOLLGATE_API_TOKENS", async () => {
    expect(await loadApiTokens({ TOLLGATE_API_TOKENS: valid })).toHaveLength(2);
  });

  it("reads TOLLGATE_API_TOKENS_FILE", async () => {
    const file = join(folder, "tokens.json");
    await writeFile(file, valid);
    expect((await loadApiTokens({ TOLLGATE_API_TOKENS_FILE: file })).map((token) => token.subject)).toEqual([
      "alice",
      "ops",
    ]);
  });

  it("gives no tokens when neither is set", async () => {
    expect(await loadApiTokens({})).toEqual([]);
    expect(await loadApiTokens({ TOLLGATE_API_TOKENS: "  " })).toEqual([]);
  });

  it("refuses both at once, a missing file, and a bad file", async () => {
    const both = loadApiTokens({ TOLLGATE_API_TOKENS: valid, TOLLGATE_API_TOKENS_FILE: "/x" });
    await expect(both).rejects.toMatchObject({ code: "TG_INVALID_CONFIG" });
    const missing = loadApiTokens({ TOLLGATE_API_TOKENS_FILE: join(folder, "missing.json") });
    await expect(missing).rejects.toMatchObject({ code: "TG_INVALID_CONFIG" });
    const bad = join(folder, "bad.json");
    await writeFile(bad, "[{}]");
    await expect(loadApiTokens({ TOLLGATE_API_TOKENS_FILE: bad })).rejects.toMatchObject({
      code: "TG_INVALID_CONFIG",
    });
  });
});

describe("createTokenVerifier", () => {
  const verify = createTokenVerifier(parseApiTokens(valid));

  it("recognises each token and nothing else; a token without a tenant is of the default tenant", async () => {
    expect(await verify(secret)).toMatchObject({ subject: "alice", tenant: "default" });
    expect([...((await verify("another-token-0123456789"))?.roles ?? [])]).toEqual(["admin"]);
    expect(await verify(`${secret}x`)).toBeUndefined();
    expect(await verify(secret.slice(0, -1))).toBeUndefined();
    expect(await verify("")).toBeUndefined();
  });

  it("recognises nothing when there are no tokens", async () => {
    expect(await createTokenVerifier([])(secret)).toBeUndefined();
  });

  it("recognises a token stored hashed (sha256:<hex>), with its tenant and profiles", async () => {
    const hashed = `sha256:${createHash("sha256").update(secret).digest("hex")}`;
    const tokens = parseApiTokens(
      JSON.stringify([
        { token: hashed, subject: "bob", roles: ["runs:read"], tenant: "acme", profiles: ["strict"] },
      ]),
    );
    const verifyHashed = createTokenVerifier(tokens);
    expect(await verifyHashed(secret)).toMatchObject({
      subject: "bob",
      tenant: "acme",
      profiles: ["strict"],
    });
    // The stored digest is not itself a token.
    expect(await verifyHashed(hashed)).toBeUndefined();
  });

  it("refuses a malformed tenant", () => {
    expect(() =>
      parseApiTokens(JSON.stringify([{ token: secret, subject: "a", roles: ["admin"], tenant: "a:b" }])),
    ).toThrow(expect.objectContaining({ code: "TG_INVALID_CONFIG" }));
  });
});
