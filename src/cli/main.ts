import { readFileSync } from "node:fs";
import { nearestTollgateVariable, unknownTollgateVariables } from "../config/env.js";
import { describeFieldIssues, TollgateError } from "../errors/index.js";
import { CliError, exitCodes, UsageError } from "./cli-errors.js";
import { type ICliIo, processIo } from "./cli-io.js";
import type { ICommand } from "./command.js";
import { defineCommandGroup } from "./command-group.js";
import { apiCommand } from "./commands/api-command.js";
import { approvalsApproveCommand } from "./commands/approvals-approve.js";
import { approvalsExportCommand } from "./commands/approvals-export.js";
import { approvalsGetCommand } from "./commands/approvals-get.js";
import { approvalsListCommand } from "./commands/approvals-list.js";
import { approvalsRejectCommand } from "./commands/approvals-reject.js";
import { demoCommand } from "./commands/demo-command.js";
import { modelServerCommand } from "./commands/model-server-command.js";
import { runsCancelCommand } from "./commands/runs-cancel.js";
import { runsEventsCommand } from "./commands/runs-events.js";
import { runsForkCommand } from "./commands/runs-fork.js";
import { runsGetCommand } from "./commands/runs-get.js";
import { runsListCommand } from "./commands/runs-list.js";
import { runsRerunCommand } from "./commands/runs-rerun.js";
import { runsResumeCommand } from "./commands/runs-resume.js";
import { runsSubmitCommand } from "./commands/runs-submit.js";
import {
  schedulesDeleteCommand,
  schedulesPauseCommand,
  schedulesResumeCommand,
} from "./commands/schedules-change.js";
import { schedulesCreateCommand } from "./commands/schedules-create.js";
import { schedulesListCommand } from "./commands/schedules-list.js";
import { workerCommand } from "./commands/worker-command.js";

export const commands: readonly ICommand[] = [
  apiCommand,
  workerCommand,
  modelServerCommand,
  demoCommand,
  defineCommandGroup(
    "runs",
    "submit, find, inspect, follow, cancel, re-run, resume and fork runs through the HTTP API",
    [
      runsSubmitCommand,
      runsListCommand,
      runsGetCommand,
      runsEventsCommand,
      runsCancelCommand,
      runsRerunCommand,
      runsResumeCommand,
      runsForkCommand,
    ],
  ),
  defineCommandGroup(
    "schedules",
    "schedule run requests on a cron pattern or an interval through the HTTP API",
    [
      schedulesListCommand,
      schedulesCreateCommand,
      schedulesPauseCommand,
      schedulesResumeCommand,
      schedulesDeleteCommand,
    ],
  ),
  defineCommandGroup("approvals", "list and decide parked tool calls through the HTTP API", [
    approvalsListCommand,
    approvalsGetCommand,
    approvalsApproveCommand,
    approvalsRejectCommand,
    approvalsExportCommand,
  ]),
];

const width = Math.max(...commands.map((command) => command.path.length));

export const mainHelp = `Usage: tollgate <command> [options]

Runs LLM tool-calling agents as a distributed job system on Redis and BullMQ.

Commands:
${commands.map((command) => `  ${command.path.padEnd(width)}  ${command.summary}`).join("\n")}

Options:
  -h, --help     show this help
  -v, --version  show the version

Run "tollgate <command> --help" for a command's options. Every command takes --json and -o/--output
table|json: results print as tables fitted to the terminal's width on a terminal, and as JSON when
piped or redirected (--json asks for JSON anywhere, -o table for a table). Configuration comes from
environment variables (REDIS_URL, TOLLGATE_PREFIX, OPENAI_API_KEY, ...): see docs/CONFIGURATION.md.
`;

/**
 * Runs one `tollgate` command line and resolves with its exit code: 0 done, 1 failed, 2 wrong usage.
 * Long-running commands (api, worker, model-server) resolve once they have stopped.
 */
export async function runCli(argv: readonly string[], io: ICliIo = processIo()): Promise<number> {
  const [name, ...args] = argv;
  try {
    warnAboutUnknownVariables(io);
    if (name === undefined) throw new UsageError("missing command", "");
    if (name === "--help" || name === "-h" || name === "help") {
      io.printLine(mainHelp.trimEnd());
      return exitCodes.ok;
    }
    if (name === "--version" || name === "-v") {
      io.printLine(packageVersion());
      return exitCodes.ok;
    }
    const command = commands.find((candidate) => candidate.path === name);
    if (!command) throw new UsageError(`unknown command "${name}"`, "");
    return await command.run(args, io);
  } catch (error) {
    return reportFailure(io, error);
  }
}

/** One line that says what went wrong; a stack only for what is neither a usage nor a known failure. */
export function reportFailure(io: ICliIo, error: unknown): number {
  if (error instanceof UsageError) {
    const command = error.commandPath === "" ? "tollgate" : `tollgate ${error.commandPath}`;
    io.printError(`${command}: ${error.message}`);
    io.printError(`Run "${command} --help" for usage.`);
    return exitCodes.usage;
  }
  if (error instanceof CliError) {
    io.printError(`tollgate: ${error.message}`);
    return exitCodes.failure;
  }
  if (TollgateError.isInstance(error)) {
    const issues = error.details?.issues;
    const detail =
      issues && !error.message.includes(issues[0]?.message ?? "") ? ` ${describeFieldIssues(issues)}` : "";
    io.printError(`tollgate: ${error.message}${detail}`);
    return exitCodes.failure;
  }
  io.printError(
    `tollgate: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return exitCodes.failure;
}

function warnAboutUnknownVariables(io: ICliIo): void {
  for (const name of unknownTollgateVariables(io.env)) {
    const nearest = nearestTollgateVariable(name);
    const hint = nearest === undefined ? "see docs/CONFIGURATION.md" : `did you mean ${nearest}?`;
    io.printError(`tollgate: warning: ${name} is not a Tollgate setting and is ignored (${hint})`);
  }
}

function packageVersion(): string {
  // src/cli/main.ts and dist/cli/main.js are both two levels below the package root.
  const packageJson = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return packageJson.version;
}
