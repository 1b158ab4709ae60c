import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJwtVerifier, type IJwtVerifier } from "../../../src/api/index.js";
import { clientInternals } from "../../helpers/internals.js";
import { createApiFixture, type IApiFixture } from "./api-fixture.js";

/** The JWKS server's port: this worktree's range (7700-7799). */
const jwksPort = 7701;
const issuer = "https://issuer.test";
const audience = "tollgate-api";

interface ISigningKey {
  kid: string;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];
  publicJwk: JWK;
}

async function signingKey(kid: string): Promise<ISigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } };
}

interface ITokenShape {
  key: ISigningKey;
  claims?: Record<string, unknown>;
  issuer?: string;
  audience?: string;
  /** Seconds from now; undefined: no `exp` at all. */
  expiresIn?: number | undefined;
  notBeforeIn?: number;
}

function sign({ key, claims = {}, ...shape }: ITokenShape): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ roles: ["runs:read"], tenant: "acme", ...claims })
    .setProtectedHeader({ alg: "ES256", kid: key.kid })
    .setSubject("jwt-user")
    .setIssuer(shape.issuer ?? issuer)
    .setAudience(shape.audience ?? audience)
    .setIssuedAt(now);
  if (!("expiresIn" in shape)) jwt.setExpirationTime(now + 300);
  else if (shape.expiresIn !== undefined) jwt.setExpirationTime(now + shape.expiresIn);
  if (shape.notBeforeIn !== undefined) jwt.setNotBefore(now + shape.notBeforeIn);
  return jwt.sign(key.privateKey);
}

describe("JWT bearer tokens with a rotating JWKS", () => {
  let server: Server;
  let servedKeys: JWK[] = [];
  let fetches = 0;
  let keyA: ISigningKey;
  let keyB: ISigningKey;
  let verifier: IJwtVerifier;

  beforeAll(async () => {
    keyA = await signingKey("key-a");
    keyB = await signingKey("key-b");
    servedKeys = [keyA.publicJwk];
    server = createServer((_request, response) => {
      fetches += 1;
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ keys: servedKeys }));
    });
    server.listen(jwksPort, "127.0.0.1");
    await once(server, "listening");
    // No cooldown: an unknown kid refetches at once, so the test needs no waiting.
    verifier = await createJwtVerifier({
      issuer,
      audience,
      jwksUrl: `http://127.0.0.1:${jwksPort}/jwks.json`,
      jwksCooldownMs: 0,
    });
  });
  afterAll(async () => {
    server.close();
    server.closeAllConnections();
  });

  it("accepts A; after rotating to B, accepts B (refetched on its unknown kid) and refuses A", async () => {
    const tokenA = await sign({ key: keyA });
    expect(await verifier.verify(tokenA)).toMatchObject({ subject: "jwt-user", tenant: "acme" });
    const fetchesBefore = fetches;
    // Cached: a second token of A fetches nothing.
    expect(await verifier.verify(await sign({ key: keyA }))).toBeDefined();
    expect(fetches).toBe(fetchesBefore);

    servedKeys = [keyA.publicJwk, keyB.publicJwk];
    expect(await verifier.verify(await sign({ key: keyB }))).toMatchObject({ subject: "jwt-user" });
    expect(fetches).toBe(fetchesBefore + 1);

    servedKeys = [keyB.publicJwk];
    // A's kid is still cached; the next unknown kid refetches and A is gone from then on.
    await verifier.verify(await sign({ key: { ...keyB, kid: "key-unknown" } }));
    expect(await verifier.verify(tokenA)).toBeUndefined();
    expect(await verifier.verify(await sign({ key: keyB }))).toBeDefined();
  });

  it.each([
    ["another issuer", { issuer: "https://evil.test" }],
    ["another audience", { audience: "someone-else" }],
    ["an expired token", { expiresIn: -60 }],
    ["a token not valid yet", { notBeforeIn: 600 }],
    ["a token without exp", { expiresIn: undefined }],
    ["a token with no known role", { claims: { roles: ["superuser"] } }],
    ["a malformed tenant", { claims: { tenant: "a:b" } }],
  ])("refuses %s", async (_label, shape) => {
    expect(await verifier.verify(await sign({ key: keyB, ...shape }))).toBeUndefined();
  });

  it("refuses a token signed by a key the JWKS does not hold under that kid", async () => {
    const forged = await sign({ key: { ...keyA, kid: "key-b" } });
    expect(await verifier.verify(forged)).toBeUndefined();
  });

  it("reads roles and tenant from configured claims, and keys from a file", async () => {
    const file = join(tmpdir(), `tollgate-jwks-${process.pid}.json`);
    await writeFile(file, JSON.stringify({ keys: [keyA.publicJwk] }));
    const fromFile = await createJwtVerifier({
      issuer,
      audience,
      jwksFile: file,
      rolesClaim: "https://tollgate.test/roles",
      tenantClaim: "org",
    });
    const token = await sign({
      key: keyA,
      claims: { "https://tollgate.test/roles": "approvals:read approvals:decide", org: "globex" },
    });
    const principal = await fromFile.verify(token);
    expect(principal).toMatchObject({ subject: "jwt-user", tenant: "globex" });
    expect([...(principal?.roles ?? [])].sort()).toEqual(["approvals:decide", "approvals:read"]);
    // Rotated in the file: a reload drops A.
    await writeFile(file, JSON.stringify({ keys: [keyB.publicJwk] }));
    await fromFile.reload();
    expect(await fromFile.verify(token)).toBeUndefined();
  });

  describe("over HTTP", () => {
    let fixture: IApiFixture;
    beforeAll(async () => {
      fixture = await createApiFixture("api-jwt", { tokens: [], jwt: verifier });
    }, 60_000);
    afterAll(() => fixture.close());

    it("a JWT acts in its tenant; a bad one gets 401", async () => {
      servedKeys = [keyB.publicJwk];
      const writerJwt = await sign({
        key: keyB,
        claims: { roles: ["runs:write", "runs:read"], tenant: "acme" },
      });
      const created = await fixture.app.inject({
        method: "POST",
        url: "/v1/runs",
        headers: { authorization: `Bearer ${writerJwt}` },
        payload: { input: "hello", userContext: { userId: "u" } },
      });
      expect(created.statusCode).toBe(202);
      const stored = await clientInternals(fixture.harness.client)
        .runtimeOf(created.json().runId)
        .runs.load(created.json().runId);
      expect(stored?.state.request).toMatchObject({ tenant: "acme", createdBy: "jwt-user" });

      const otherTenant = await sign({ key: keyB, claims: { roles: ["runs:read"], tenant: "globex" } });
      const read = await fixture.app.inject({
        method: "GET",
        url: `/v1/runs/${created.json().runId}`,
        headers: { authorization: `Bearer ${otherTenant}` },
      });
      expect(read.statusCode).toBe(404);

      const expired = await sign({ key: keyB, expiresIn: -60 });
      const refused = await fixture.app.inject({
        method: "GET",
        url: "/v1/tools",
        headers: { authorization: `Bearer ${expired}` },
      });
      expect(refused.statusCode).toBe(401);
      expect(refused.headers["www-authenticate"]).toContain("invalid_token");
    });
  });
});
