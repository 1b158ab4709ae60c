import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { TEnv } from "../../config/env.js";
import { createLogger } from "../../observability/index.js";
import { CliError } from "../cli-errors.js";
import type { ICliIo } from "../cli-io.js";
import { TollgateApiClient } from "../http/api-client.js";
import { formatDuration } from "../output/durations.js";
import type { TOutputFormat } from "../output/output-format.js";
import { onStopSignal } from "../stop-signal.js";
import { deletePrefixKeys } from "./delete-prefix-keys.js";
import { DEMO_MCP_SERVER, demoMcpServerDescription } from "./demo-mcp-mount.js";
import { acquireDemoRedis } from "./demo-redis.js";
import { demoScenarios, scenarioInput } from "./demo-scenarios.js";
import { DEMO_APPROVER, DEMO_REQUESTER, startDemoStack } from "./demo-stack.js";
import { submitAndFollow } from "./follow-run.js";
import { formatTranscript } from "./format-transcript.js";
import { logInWords } from "./log-in-words.js";

/** src/cli/demo and dist/cli/demo are both three levels below the package root. */
const gatewayUrl = new URL("../../../examples/support-desk/gateway.ts", import.meta.url);

/** A run of the demo may not take longer than this, approvals included. */
const runTimeoutMs = 60_000;

/**
 * The demo: Redis (found or started), then in this process the model, a worker and the HTTP API on a
 * queue prefix of its own, with a stdio MCP server it starts (mounted as "warehouse"); six support-desk
 * conversations through the HTTP API, printed as a
 * transcript; then everything it started is stopped and its keys deleted, whatever happened.
 */
export async function runDemo(io: ICliIo, env: TEnv, format: TOutputFormat = "table"): Promise<number> {
  const gatewayPath = fileURLToPath(gatewayUrl);
  if (!existsSync(gatewayPath)) {
    throw new CliError(
      `the demo needs examples/support-desk/gateway.ts of a Tollgate checkout (${gatewayPath})`,
    );
  }
  const startedAt = Date.now();
  const stopped = new AbortController();
  const disposeSignal = onStopSignal(() =>
    stopped.abort(new CliError("interrupted: the demo stopped what it had started")),
  );
  const redis = await acquireDemoRedis(env);
  const prefix = `tollgate-demo-${randomUUID().slice(0, 8)}`;
  // Warnings and errors of the services go to standard error in words, so the transcript stays readable.
  const logger = createLogger({
    level: env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL,
    pretty: false,
    destination: logInWords(io.printError),
    name: "tollgate-demo",
  });
  let keysDeleted = 0;
  try {
    const stack = await startDemoStack({
      env,
      redisUrl: redis.url,
      prefix,
      gatewayPath,
      cwd: io.cwd,
      logger,
    });
    try {
      if (format === "json")
        io.printLine(JSON.stringify({ demo: "support-desk", api: stack.apiUrl, prefix }));
      else printHeader(io, { redis: redis.description, stack, prefix });
      const failures = await runScenarios(io, stack, stopped.signal, format);
      if (failures.length > 0) throw new CliError(`demo failed: ${failures.join("; ")}`);
    } finally {
      await stack.close();
    }
  } finally {
    disposeSignal();
    const deleted = await deletePrefixKeys(redis.url, prefix).catch(() => 0);
    await redis.stop();
    keysDeleted = deleted;
  }
  const durationMs = Date.now() - startedAt;
  if (format === "json") {
    io.printLine(JSON.stringify({ done: true, runs: demoScenarios.length, durationMs, keysDeleted }));
    return 0;
  }
  io.printLine("");
  io.printLine(
    `Done: ${demoScenarios.length} runs in ${formatDuration(durationMs)}; ${keysDeleted} keys deleted.`,
  );
  return 0;
}

function printHeader(
  io: ICliIo,
  {
    redis,
    stack,
    prefix,
  }: { redis: string; stack: { modelDescription: string; apiUrl: string }; prefix: string },
): void {
  io.printLine("Tollgate demo: a support desk (examples/support-desk/gateway.ts)");
  io.printLine(`   redis     ${redis}`);
  io.printLine(`   model     ${stack.modelDescription}`);
  io.printLine(
    `   api       ${stack.apiUrl} (tokens generated for ${DEMO_REQUESTER}, who asks, and ${DEMO_APPROVER}, who reviews)`,
  );
  io.printLine(`   mcp       ${demoMcpServerDescription()}`);
  io.printLine(`   queues    prefix ${prefix} (its keys are deleted at the end)`);
}

async function runScenarios(
  io: ICliIo,
  stack: { apiUrl: string; token: string; reviewerToken: string; modelKind: "scripted" | "real" },
  stopped: AbortSignal,
  format: TOutputFormat,
): Promise<string[]> {
  const client = new TollgateApiClient({ baseUrl: stack.apiUrl, token: stack.token });
  const reviewer = new TollgateApiClient({ baseUrl: stack.apiUrl, token: stack.reviewerToken });
  const failures: string[] = [];
  for (const [index, scenario] of demoScenarios.entries()) {
    const signal = AbortSignal.any([stopped, AbortSignal.timeout(runTimeoutMs)]);
    const followed = await submitAndFollow(
      { client, reviewer },
      { input: scenarioInput(scenario, stack.modelKind), userContext: scenario.userContext },
      signal,
    ).catch((error: unknown) => {
      if (stopped.aborted) throw stopped.reason;
      throw error;
    });
    if (format === "json") {
      io.printLine(JSON.stringify({ run: index + 1, title: scenario.title, ...followed }));
    } else {
      io.printLine("");
      const transcript = formatTranscript({
        number: index + 1,
        title: scenario.title,
        prompt: scenario.prompt,
        userId: scenario.userContext.userId,
        mcpServers: [DEMO_MCP_SERVER],
        ...followed,
      });
      for (const line of transcript) io.printLine(line);
    }
    if (followed.response.status !== "completed") {
      failures.push(`run ${index + 1} ended ${followed.response.status}`);
    }
  }
  return failures;
}
