import { parseEnv } from "../../config/env.js";
import { allQueueNames, type TQueueName } from "../../queue/queue-names.js";
import { UsageError } from "../cli-errors.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { integerFlag, listFlag, requiredFlag } from "../flag-values.js";

export const workerCommand: ICommand = defineCommand({
  path: "worker",
  summary: "process runs, tool calls and approvals from the queues",
  usage:
    "--gateway <module> [--queues runs,tools,approvals] [--partitions 0,2] [--concurrency <n>] [--metrics-port <n>]",
  description: `Runs BullMQ workers for the gateway: model steps (runs), tool calls (tools) and decided or expired
approvals (approvals). Run as many as you need. On SIGTERM/SIGINT it takes no new jobs, waits for
active ones up to TOLLGATE_SHUTDOWN_TIMEOUT_MS, hands the rest back, and exits 0.`,
  flags: {
    gateway: {
      type: "string",
      value: "<module>",
      help: "a .js/.mjs or .ts module whose default export is defineGateway(...)",
    },
    queues: {
      type: "string",
      value: "<list>",
      help: "queues to serve, comma-separated (default: TOLLGATE_QUEUES or all three)",
    },
    partitions: {
      type: "string",
      value: "<list>",
      help: "partitions to serve: base, an index of TOLLGATE_PARTITIONS, or <index>of<count>\n(default: TOLLGATE_SERVED_PARTITIONS or every partition of the current and\nprevious layouts)",
    },
    concurrency: {
      type: "string",
      value: "<n>",
      help: "jobs at once per queue and partition (default: TOLLGATE_CONCURRENCY or 8)",
    },
    "metrics-port": {
      type: "string",
      value: "<n>",
      help: "serve Prometheus /metrics on this port (default: TOLLGATE_METRICS_PORT or 9464;\n0 picks a free one); it listens on TOLLGATE_HOST (default 127.0.0.1)",
    },
  },
  formats: "log lines for people (with pino-pretty installed), or JSON lines",
  notes: `The model: OPENAI_API_KEY (with OPENAI_BASE_URL for another endpoint), or OPENAI_BASE_URL alone for a
keyless local endpoint such as \`tollgate model-server\`; TOLLGATE_MODEL names the model.`,
  async run({ io, values, output }) {
    const gatewayPath = requiredFlag(workerCommand, "gateway", values.gateway);
    const queues = values.queues !== undefined ? queuesFlag(values.queues) : undefined;
    const partitions = values.partitions !== undefined ? partitionsFlag(values.partitions) : undefined;
    const concurrency =
      values.concurrency !== undefined
        ? integerFlag(workerCommand, "concurrency", values.concurrency, { min: 1, max: 1000 })
        : undefined;
    const metricsPort =
      values["metrics-port"] !== undefined
        ? integerFlag(workerCommand, "metrics-port", values["metrics-port"], { min: 0, max: 65_535 })
        : undefined;
    const env = parseEnv(io.env);
    // Loaded only now: the queue runtime and the model SDK take seconds to import, --help should not.
    const { serveWorker } = await import("../serve/serve-worker.js");
    return serveWorker(io, env, {
      gatewayPath,
      queues: queues ?? env.TOLLGATE_QUEUES ?? allQueueNames,
      ...(partitions ? { partitions } : {}),
      concurrency: concurrency ?? env.TOLLGATE_CONCURRENCY,
      metricsPort: metricsPort ?? env.TOLLGATE_METRICS_PORT,
      metricsHost: env.TOLLGATE_HOST,
      ...(output.asked !== undefined ? { prettyLogs: output.asked === "table" } : {}),
    });
  },
});

function partitionsFlag(value: string): string[] {
  const names = listFlag(value);
  const malformed = names.filter((name) => !/^(base|(0|[1-9]\d{0,2})(of[1-9]\d{0,2})?)$/.test(name));
  if (names.length === 0 || malformed.length > 0) {
    throw new UsageError(
      `--partitions takes a comma-separated list of base, <index> or <index>of<count>${malformed.length > 0 ? `; not one: ${malformed.join(", ")}` : ""}`,
      workerCommand.path,
    );
  }
  return [...new Set(names)];
}

function queuesFlag(value: string): TQueueName[] {
  const names = listFlag(value);
  const unknown = names.filter((name) => !(allQueueNames as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new UsageError(
      `--queues takes a comma-separated list of ${allQueueNames.join(", ")}${unknown.length > 0 ? `; unknown: ${unknown.join(", ")}` : ""}`,
      workerCommand.path,
    );
  }
  return [...new Set(names)] as TQueueName[];
}
