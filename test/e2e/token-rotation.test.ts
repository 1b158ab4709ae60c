import { createHash, randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdsThroughout } from "../helpers/holds-throughout.js";
import { testRedisUrl } from "../helpers/redis-url.js";
import { deletePrefix, uniquePrefix } from "../helpers/test-prefix.js";
import { waitUntil } from "../helpers/wait-until.js";
import { type ICliProcess, logFields, startCli } from "./cli-process.js";

/*
 * Token rotation without a restart: a real `tollgate api` with a tokens file of hashed tokens, rewritten
 * (picked up by its watch) and then signalled with SIGHUP (re-read on demand). Its log is written to a
 * file in the tokens file's directory, as an operator who keeps both in one folder has it: a reload's own
 * log line must not cause the next reload.
 */

/** This worktree's port range is 7700-7799. */
const apiPort = 7702;
const gateway = "test/fixtures/test-gateway.ts";
/** Several times the watch's debounce (200 ms): a reload a change caused would be logged within it. */
const quietMs = 1_500;

const hashed = (secret: string) => `sha256:${createHash("sha256").update(secret).digest("hex")}`;
const tokensJson = (secret: string, subject: string) =>
  JSON.stringify([{ token: hashed(secret), subject, roles: ["runs:read"], tenant: "acme" }]);

describe("tollgate api re-reads its tokens file", () => {
  const prefix = uniquePrefix("e2e-tokens");
  const secretA = randomBytes(24).toString("base64url");
  const secretB = randomBytes(24).toString("base64url");
  let directory = "";
  let file = "";
  let api: ICliProcess;
  const url = `http://127.0.0.1:${apiPort}`;

  const statusWith = async (secret: string) =>
    (await fetch(`${url}/v1/tools`, { headers: { authorization: `Bearer ${secret}` } })).status;
  const reloads = () =>
    api
      .output()
      .split("\n")
      .filter((line) => logFields(line)?.msg === "API tokens reloaded").length;
  const reloadsStay = (count: number, message: string) =>
    holdsThroughout(() => reloads() === count, { durationMs: quietMs, message });

  /** Something else in the tokens file's directory changes: a log beside it, an editor's swap file. */
  async function writeOtherFiles(times: number): Promise<void> {
    for (let index = 0; index < times; index++) {
      await writeFile(join(directory, `.tokens.json.swp`), String(index));
      await writeFile(join(directory, `other-${index % 3}.json`), String(index));
    }
  }

  /** Replaces the file the way a secret manager does: write aside, then rename over it. */
  async function replaceFile(text: string): Promise<void> {
    const aside = `${file}.next`;
    await writeFile(aside, text);
    await rename(aside, file);
  }

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "tollgate-tokens-"));
    file = join(directory, "tokens.json");
    await writeFile(file, tokensJson(secretA, "service-a"));
    api = startCli(["api", "--gateway", gateway, "--port", String(apiPort)], {
      REDIS_URL: testRedisUrl,
      TOLLGATE_PREFIX: prefix,
      LOG_LEVEL: "info",
      TOLLGATE_API_TOKENS_FILE: file,
    });
    // The API's log in the same directory as its tokens file.
    api.child.stdout?.on("data", (chunk: string) => appendFileSync(join(directory, "api.log"), chunk));
    await api.waitForLine((line) => logFields(line)?.msg === "tollgate api listening");
  }, 60_000);

  afterAll(async () => {
    await api.stop("SIGKILL");
    await rm(directory, { recursive: true, force: true });
    await deletePrefix(prefix);
  });

  it("accepts the hashed token it started with", async () => {
    expect(await statusWith(secretA)).toBe(200);
    expect(await statusWith(secretB)).toBe(401);
  });

  it("does not reload while its log or other files in its directory change", async () => {
    await reloadsStay(0, "no reload while the API writes its log beside the tokens file");
    await writeOtherFiles(20);
    await reloadsStay(0, "no reload while other files in the directory change");
    expect(await statusWith(secretA)).toBe(200);
  });

  it("picks up a rewritten file by itself, once: the new token works, the old one no longer", async () => {
    await replaceFile(tokensJson(secretB, "service-b"));
    await waitUntil(async () => (await statusWith(secretB)) === 200, { message: "token B accepted" });
    expect(await statusWith(secretA)).toBe(401);
    // The rename's several events, and the reload's own log line, are one reload.
    await reloadsStay(1, "one reload for one change");
  });

  it("keeps the current tokens when the file is broken, and re-reads it on SIGHUP", async () => {
    await waitUntil(() => reloads() >= 1, { message: "the watch reloaded once" });
    await replaceFile("[{ not json");
    await api.waitForLine(
      (line) => logFields(line)?.msg === "API tokens not reloaded: the current ones stay in use",
    );
    expect(await statusWith(secretB)).toBe(200);

    await writeFile(file, tokensJson(secretA, "service-a"));
    await waitUntil(async () => (await statusWith(secretA)) === 200, { message: "token A accepted again" });
    expect(await statusWith(secretB)).toBe(401);
    // Nothing changed since: only the signal makes it read the file again (without it, SIGHUP ends Node).
    const before = reloads();
    api.child.kill("SIGHUP");
    await waitUntil(() => reloads() > before, { message: "SIGHUP reloaded the tokens" });
    expect(await statusWith(secretA)).toBe(200);
    // SIGHUP did not end the process.
    expect(api.child.exitCode).toBeNull();
  });
});
