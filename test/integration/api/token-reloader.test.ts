import { EventEmitter } from "node:events";
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ITokenReloader } from "../../../src/api/auth/token-reloader.js";
import { StaticTokens, watchTokensFile } from "../../../src/api/index.js";
import { holdsThroughout } from "../../helpers/holds-throughout.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { captureLogger, type ICapturedLogger } from "./capture-logger.js";

/*
 * The real reloader on a real directory: a Kubernetes secret's layout (the file a symlink through
 * `..data`, swapped by a rename), other files beside it, a rewrite that changes nothing, and SIGHUP.
 */

/** Several times the reloader's debounce (200 ms). */
const quietMs = 1_000;

const tokensJson = (secret: string) =>
  JSON.stringify([{ token: secret, subject: "svc", roles: ["runs:read"] }]);

describe("the tokens file reloader", () => {
  let directory = "";
  let captured: ICapturedLogger;
  let reloader: ITokenReloader;
  const tokens = new StaticTokens([]);
  const signals = new EventEmitter();
  const reloads = () => captured.lines().filter((line) => line.msg === "API tokens reloaded");

  /** What the kubelet does: a new timestamped folder, `..data_tmp` pointing at it, renamed over `..data`. */
  async function swapSecret(version: string, text: string): Promise<void> {
    const folder = join(directory, `..${version}`);
    await mkdir(folder);
    await writeFile(join(folder, "tokens.json"), text);
    await symlink(`..${version}`, join(directory, "..data_tmp"));
    await rename(join(directory, "..data_tmp"), join(directory, "..data"));
  }

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), "tollgate-reloader-"));
    await swapSecret("v1", tokensJson("secret-one-0123456789"));
    await symlink("..data/tokens.json", join(directory, "tokens.json"));
    tokens.replace(JSON.parse(tokensJson("secret-one-0123456789")));
    captured = captureLogger();
    reloader = watchTokensFile(join(directory, "tokens.json"), tokens, captured.logger, undefined, signals);
  });
  afterEach(async () => {
    reloader.close();
    await rm(directory, { recursive: true, force: true });
  });

  it("ignores other files in the directory, and a rewrite of the same content", async () => {
    for (let index = 0; index < 20; index++) {
      await writeFile(join(directory, "api.log"), `line ${index}\n`, { flag: "a" });
    }
    await writeFile(join(directory, "..v1", "tokens.json"), tokensJson("secret-one-0123456789"));
    await holdsThroughout(() => reloads().length === 0, { durationMs: quietMs, message: "no reload" });
  });

  it("reloads once when a secret swap changes the content, and the new token works", async () => {
    await swapSecret("v2", tokensJson("secret-two-0123456789"));
    await waitUntil(() => tokens.verify("secret-two-0123456789") !== undefined, { message: "new token" });
    expect(tokens.verify("secret-one-0123456789")).toBeUndefined();
    await holdsThroughout(() => reloads().length === 1, { durationMs: quietMs, message: "one reload" });
    expect(reloads()[0]).toMatchObject({ tokens: 1, trigger: "file changed" });
  });

  it("reloads on SIGHUP, changed or not", async () => {
    signals.emit("SIGHUP");
    await waitUntil(() => reloads().length === 1, { message: "SIGHUP reloaded" });
    expect(reloads()[0]).toMatchObject({ trigger: "signal" });
  });
});
