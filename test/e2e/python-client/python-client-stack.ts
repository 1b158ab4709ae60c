import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { join } from "node:path";
import { testRedisUrl } from "../../helpers/redis-url.js";
import { deletePrefix, uniquePrefix } from "../../helpers/test-prefix.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { childEnvironment, type ICliProcess, logFields, repositoryRoot, startCli } from "../cli-process.js";

/*
 * What the Python client's suite (clients/python/tests) runs against: the scripted model, a worker and the
 * API as processes (`tollgate model-server`, `worker`, `api`), on free ports and a fresh prefix, with the
 * gateway of test/fixtures/python-client-gateway.ts.
 */

const gateway = "test/fixtures/python-client-gateway.ts";

/** The tenant whose runs per minute are limited to 1: the suite's 429 and its Retry-After. */
export const limitedTenant = "py-limited";

export interface IPythonClientStack {
  url: string;
  /** Bearer tokens by the name the suite knows them by (clients/python/tests/support.py). */
  tokens: { service: string; reviewer: string; limited: string };
  prefix: string;
  stop(): Promise<void>;
}

function secret(): string {
  return randomBytes(24).toString("base64url");
}

function readLogLine(message: string) {
  return (line: string) => logFields(line)?.msg === message;
}

export async function startPythonClientStack(): Promise<IPythonClientStack> {
  const prefix = uniquePrefix("python-client");
  const tokens = { service: secret(), reviewer: secret(), limited: secret() };
  const processes: ICliProcess[] = [];
  const stop = async () => {
    await Promise.allSettled(processes.map((process) => process.stop("SIGKILL")));
    await deletePrefix(prefix);
  };
  try {
    const model = startCli(["model-server", "--port", "0"], {});
    processes.push(model);
    const modelLine = await model.waitForLine((line) => line.includes("listening on http"));
    const modelUrl = modelLine.slice(modelLine.indexOf("http"));
    const shared = {
      REDIS_URL: testRedisUrl,
      TOLLGATE_PREFIX: prefix,
      // The processes say where they listen at info.
      LOG_LEVEL: "info",
      TOLLGATE_TENANT_LIMITS: JSON.stringify({ [limitedTenant]: { runsPerMinute: 1 } }),
    };
    const worker = startCli(["worker", "--gateway", gateway, "--metrics-port", "0", "--concurrency", "8"], {
      ...shared,
      OPENAI_BASE_URL: modelUrl,
      TOLLGATE_SHUTDOWN_TIMEOUT_MS: "2000",
    });
    processes.push(worker);
    const api = startCli(["api", "--gateway", gateway, "--port", "0"], {
      ...shared,
      TOLLGATE_API_TOKENS: JSON.stringify([
        { token: tokens.service, subject: "py-service", roles: ["runs:write", "runs:read"] },
        {
          token: tokens.reviewer,
          subject: "py-reviewer",
          roles: ["approvals:read", "approvals:decide", "runs:read"],
        },
        {
          token: tokens.limited,
          subject: "py-limited",
          roles: ["runs:write", "runs:read"],
          tenant: limitedTenant,
        },
      ]),
    });
    processes.push(api);
    await worker.waitForLine(readLogLine("worker metrics at /metrics"), 60_000);
    const apiLine = await api.waitForLine(readLogLine("tollgate api listening"), 60_000);
    const url = String(logFields(apiLine)?.url);
    await waitUntil(async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.ok, {
      message: "GET /readyz answers 200",
    });
    return { url, tokens, prefix, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export const pythonClientRoot = join(repositoryRoot, "clients/python");

export interface ISuiteResult {
  code: number | null;
  output: string;
}

/**
 * Runs `python -m unittest discover clients/python/tests` against the stack, the client imported from
 * clients/python/src. `echo` also writes its output as it comes (for a person running it by hand).
 */
export async function runPythonClientSuite(
  python: string,
  stack: IPythonClientStack,
  options: { echo?: boolean; arguments?: readonly string[] } = {},
): Promise<ISuiteResult> {
  const child = spawn(
    python,
    ["-m", "unittest", "discover", "-s", join(pythonClientRoot, "tests"), "-v", ...(options.arguments ?? [])],
    {
      cwd: repositoryRoot,
      env: childEnvironment({
        PYTHONPATH: join(pythonClientRoot, "src"),
        // No __pycache__ in the checkout.
        PYTHONDONTWRITEBYTECODE: "1",
        PYTHONUNBUFFERED: "1",
        TOLLGATE_TEST_URL: stack.url,
        TOLLGATE_TEST_TOKENS: JSON.stringify(stack.tokens),
      }),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString("utf8");
    if (options.echo) process.stdout.write(chunk);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, output };
}
