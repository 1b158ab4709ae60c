import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../src/cli/demo/free-port.js";
import { testRedisUrl } from "../helpers/redis-url.js";
import { deletePrefix, uniquePrefix } from "../helpers/test-prefix.js";
import { waitUntil } from "../helpers/wait-until.js";
import { childEnvironment, repositoryRoot } from "./cli-process.js";

const run = promisify(execFile);

/** The walkthrough's own shell blocks (docs/RUNNING.md, linked from the README): each fenced sh block right
 * after this marker, in order. */
const marker = "<!-- readme-test: walkthrough -->";

function walkthroughBlocks(readme: string): string[] {
  const blocks: string[] = [];
  const pattern = new RegExp(`${marker}\\s*\\n\`\`\`(?:sh|bash)\\n([\\s\\S]*?)\\n\`\`\``, "g");
  for (const match of readme.matchAll(pattern)) blocks.push(match[1] ?? "");
  return blocks;
}

const workspace = mkdtempSync(join(tmpdir(), "tollgate-readme-"));
const prefix = uniquePrefix("readme");
let shellGroup: number | undefined;

afterAll(async () => {
  // The walkthrough leaves the model, the worker and the API running in the background, as a reader's shell
  // would: they are in the shell's process group, ended together.
  if (shellGroup !== undefined) await stopGroup(shellGroup);
  await deletePrefix(prefix);
  rmSync(workspace, { recursive: true, force: true });
}, 60_000);

interface IPass {
  /** What the pass printed. */
  output: string;
  runId: string;
  approvalId: string;
  token: string;
}

/** The line that ends each pass of the walkthrough and hands its ids to the test. */
const passEnd = 'echo "readme-test: run=$run approval=$approval token=$TOLLGATE_TOKEN"';

describe("the walkthrough of docs/RUNNING.md (Running it), run as written, twice on the same services", () => {
  it("asks, parks a refund for a human, approves it with an edit, and the run finishes, each time", async () => {
    const blocks = walkthroughBlocks(readFileSync(join(repositoryRoot, "docs", "RUNNING.md"), "utf8"));
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const [startBlock = "", ...walkBlocks] = blocks;
    const [apiPort, modelPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
    // The only changes: ports of our own instead of the walkthrough's 3000 and 4010 (other tests run beside
    // this one), the CSV written outside the checkout, and a line after each pass that hands the ids to the
    // test. The first block starts the model, the worker and the API; the others are followed twice, in the
    // same shell, against the same services, as a reader trying it again would.
    const script = ["set -euo pipefail", startBlock, ...walkBlocks, passEnd, ...walkBlocks, passEnd]
      .join("\n")
      .replaceAll("127.0.0.1:3000", `127.0.0.1:${apiPort}`)
      .replaceAll("127.0.0.1:4010", `127.0.0.1:${modelPort}`)
      .replaceAll("> decisions.csv", `> ${join(workspace, "decisions.csv")}`);
    const shell = spawn("bash", ["-c", script], {
      cwd: repositoryRoot,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: childEnvironment({
        REDIS_URL: testRedisUrl,
        TOLLGATE_PREFIX: prefix,
        TOLLGATE_PORT: String(apiPort),
        TOLLGATE_MODEL_SERVER_PORT: String(modelPort),
        TOLLGATE_METRICS_PORT: String(metricsPort),
        LOG_LEVEL: "warn",
      }),
    });
    shellGroup = shell.pid;
    let output = "";
    let errors = "";
    shell.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    shell.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      errors += chunk;
    });
    const [code] = (await once(shell, "exit")) as [number | null];
    expect(code, `stdout:\n${output}\nstderr:\n${errors}`).toBe(0);

    const passes = passesOf(output);
    expect(passes, output).toHaveLength(2);
    const api = `http://127.0.0.1:${apiPort}`;
    const outcomes = [];
    for (const pass of passes) {
      // Not a terminal: every result is JSON, so the walkthrough's `$(...)` captures read ids.
      expect(pass.runId).toMatch(/^run_/);
      // "Where is my order A-1001?" was answered after two tool calls.
      expect(pass.output).toContain("Your headphones (A-1001) are on their way with DHL");
      // The refund parked, was approved with the edited amount, and the run finished.
      expect(pass.output).toMatch(
        new RegExp(`"event":"tool-call-parked".*"approvalId":"${pass.approvalId}"`),
      );
      expect(pass.output).toMatch(/"status": "approved"/);
      const headers = { authorization: `Bearer ${pass.token}` };
      const runView = (await (await fetch(`${api}/v1/runs/${pass.runId}`, { headers })).json()) as {
        status: string;
        response: {
          text: string;
          toolResults: Array<{ toolName: string; outcome: string; input: unknown; text: string }>;
        };
      };
      outcomes.push({
        status: runView.status,
        text: runView.response.text,
        calls: runView.response.toolResults.map((call) => [
          call.toolName,
          call.outcome,
          call.input,
          call.text,
        ]),
      });
    }
    // The same outcome each time, to the refund's id: nothing of the first pass changes the second.
    expect(outcomes[1]).toEqual(outcomes[0]);
    expect(outcomes[0]).toMatchObject({
      status: "completed",
      calls: [
        ["lookup_order", "ok", { orderId: "A-1002" }, expect.any(String)],
        ["refund", "ok", { amount: 120 }, expect.stringContaining('"refundId":"re_0001"')],
      ],
    });
    const [first, second] = passes as [IPass, IPass];
    expect(second.runId).not.toBe(first.runId);
    // The auditors' CSV, written by the second pass, holds both decisions.
    const csv = readFileSync(join(workspace, "decisions.csv"), "utf8");
    expect(csv).toContain(first.approvalId);
    expect(csv).toContain(second.approvalId);
    expect(csv).toMatch(/approved/);

    // On a terminal (a pseudo-terminal from script(1), 160 columns wide) the same commands print tables.
    const { runId, approvalId, token } = second;
    const cli = `node bin/tollgate.js`;
    const onTerminal = async (command: string) => {
      const result = await run("script", ["-qec", `stty cols 160 rows 50 && ${command}`, "/dev/null"], {
        cwd: repositoryRoot,
        env: childEnvironment({ TOLLGATE_URL: api, TOLLGATE_TOKEN: token }),
      }).catch((error: { stdout?: string }) => {
        throw new Error(`${command} failed:\n${error.stdout ?? ""}`);
      });
      return result.stdout;
    };
    const decided = await onTerminal(`${cli} approvals list --status decided --approver ops`);
    expect(decided).toMatch(/APPROVAL\s+TOOL\s+STATUS\s+USER\s+REQUESTED/);
    expect(decided).toMatch(new RegExp(`${approvalId}\\s+refund\\s+approved by ops\\s+u-ada`));
    expect(decided).toMatch(new RegExp(`${first.approvalId}\\s+refund\\s+approved by ops\\s+u-ada`));
    const runTable = await onTerminal(`${cli} runs get ${runId}`);
    expect(runTable).toMatch(/Status:\s+completed/);
    expect(runTable).toMatch(/STEP\s+TOOL\s+OUTCOME\s+TOOK\s+INPUT/);
    // Who approved the refund, and what their edit changed.
    expect(runTable).toMatch(/refund \(step \d+\): edited and approved by ops/);
    expect(runTable).toMatch(/amount: \d+ → 120/);
    const events = await onTerminal(`${cli} runs events ${runId}`);
    expect(events).toMatch(/TIME\s+EVENT\s+DETAIL/);
    expect(events).toMatch(new RegExp(`refund waits for approval ${approvalId}`));
    // --json on a terminal, and --output table when piped, choose the other way round.
    expect(JSON.parse(await onTerminal(`${cli} runs get ${runId} --json`))).toMatchObject({ runId });
    const piped = await run(
      process.execPath,
      ["bin/tollgate.js", "approvals", "get", approvalId, "-o", "table"],
      {
        cwd: repositoryRoot,
        env: childEnvironment({ TOLLGATE_URL: api, TOLLGATE_TOKEN: token }),
      },
    );
    expect(piped.stdout).toMatch(/Approver:\s+ops/);
  }, 360_000);
});

/** Each pass's output and the ids its last line handed over. */
function passesOf(output: string): IPass[] {
  const passes: IPass[] = [];
  let rest = output;
  for (;;) {
    const ids = /readme-test: run=(\S*) approval=(\S*) token=(\S*)\n/.exec(rest);
    if (ids === null) return passes;
    const [line, runId = "", approvalId = "", token = ""] = ids;
    passes.push({ output: rest.slice(0, ids.index), runId, approvalId, token });
    rest = rest.slice(ids.index + line.length);
  }
}

async function stopGroup(group: number): Promise<void> {
  signalGroup(group, "SIGTERM");
  try {
    await waitUntil(() => !groupExists(group), { timeoutMs: 20_000 });
  } catch {
    signalGroup(group, "SIGKILL");
  }
}

function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // Already gone.
  }
}

function groupExists(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}
