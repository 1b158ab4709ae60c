import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TollgateError } from "../../src/errors/index.js";
import { defineGateway, type IGateway } from "../../src/gateway/index.js";
import { createHarness, type IHarness } from "../helpers/harness.js";
import { testRedisUrl } from "../helpers/redis-url.js";
import { script } from "../helpers/script.js";
import { type ICliProcess, logFields, repositoryRoot, startCli } from "./cli-process.js";

/**
 * A gateway module that imports a library of its own, not the CLI's: a project that installed `tollgate`
 * beside a CLI run from elsewhere (npx, a global install, another checkout). Here the second copy is the
 * source copied to a directory of its own, so each of its modules is a second instance (its symbols, its
 * classes), while the dependencies are the repository's, as a second install would resolve them.
 */
const stdioServer = join(repositoryRoot, "test", "fixtures", "mcp-stdio-server.ts");
const mcpServers = { local: { command: process.execPath, args: ["--import", "tsx", stdioServer] } };

const gatewaySource = `import { defineGateway } from "./copy/src/index.js";

export default defineGateway({
  tools: [],
  mcpServers: ${JSON.stringify(mcpServers)},
});
`;

describe("a gateway that imports a second copy of the library, run by the CLI's worker", () => {
  const workspace = mkdtempSync(join(tmpdir(), "tollgate-second-copy-"));
  let harness: IHarness;
  let worker: ICliProcess;

  beforeAll(async () => {
    mkdirSync(join(workspace, "copy"));
    cpSync(join(repositoryRoot, "src"), join(workspace, "copy", "src"), { recursive: true });
    symlinkSync(join(repositoryRoot, "node_modules"), join(workspace, "node_modules"), "dir");
    writeFileSync(join(workspace, "package.json"), JSON.stringify({ type: "module", private: true }));
    writeFileSync(join(workspace, "gateway.ts"), gatewaySource);
    // The client is the CLI's copy with the same gateway, as a service beside the workers would be.
    const gateway: IGateway = defineGateway({ tools: [], mcpServers });
    harness = await createHarness(gateway, "second-copy");
    worker = startCli(["worker", "--gateway", join(workspace, "gateway.ts"), "--metrics-port", "0"], {
      REDIS_URL: testRedisUrl,
      TOLLGATE_PREFIX: harness.prefix,
      OPENAI_BASE_URL: harness.model.url,
      LOG_LEVEL: "info",
    });
    await worker.waitForLine((line) => logFields(line)?.msg === "worker started", 60_000);
  }, 90_000);

  afterAll(async () => {
    await worker?.stop("SIGKILL");
    await harness?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it("runs a call of an MCP server's tool to completion", async () => {
    const response = await harness.client.ask({
      input: script(
        { calls: [{ name: "local__echo", input: { text: "from a second copy" } }] },
        { text: "done" },
      ),
      userContext: { userId: "u-second-copy" },
      timeoutMs: 60_000,
    });
    const workerErrors = worker
      .output()
      .split("\n")
      .filter((line) => Number(logFields(line)?.level) >= 50);
    expect(response.status, workerErrors.join("\n")).toBe("completed");
    expect(response.toolResults.map((part) => [part.toolName, part.outcome, part.text])).toEqual([
      ["local__echo", "ok", "from a second copy"],
    ]);
  }, 90_000);

  it("a TollgateError of the second copy is one for this copy too (checked by its brand, not its class)", async () => {
    const copy = (await import(
      join(workspace, "copy", "src", "errors", "index.ts")
    )) as typeof import("../../src/errors/index.js");
    const error = new copy.TollgateError("TG_INVALID_CONFIG", "from the second copy");
    expect(error instanceof TollgateError).toBe(false);
    expect(TollgateError.isInstance(error)).toBe(true);
    expect(TollgateError.is(error, "TG_INVALID_CONFIG")).toBe(true);
  });
});
