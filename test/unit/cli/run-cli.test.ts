import { describe, expect, it } from "vitest";
import { freePort } from "../../../src/cli/demo/free-port.js";
import { commands, runCli } from "../../../src/cli/main.js";
import { captureIo } from "./capture-io.js";

/** Every command line that has a help text: each command, each group and each of its commands. */
const helpLines = commands.flatMap((command) => [
  [command.path],
  ...(command.subcommands ?? []).map((subcommand) => subcommand.path.split(" ")),
]);

describe("tollgate", () => {
  it("lists the commands with --help and exits 0", async () => {
    const io = captureIo();
    expect(await runCli(["--help"], io)).toBe(0);
    const help = io.out.join("\n");
    for (const name of ["api", "worker", "model-server", "demo", "runs", "approvals"]) {
      expect(help).toMatch(new RegExp(`^  ${name} `, "m"));
    }
    expect(io.errors).toEqual([]);
  });

  it("prints the version", async () => {
    const io = captureIo();
    expect(await runCli(["--version"], io)).toBe(0);
    expect(io.out).toEqual([expect.stringMatching(/^\d+\.\d+\.\d+/)]);
  });

  it.each(helpLines)("%s … --help prints its usage and exits 0", async (...path) => {
    const io = captureIo();
    expect(await runCli([...path, "--help"], io)).toBe(0);
    expect(io.out.join("\n")).toMatch(new RegExp(`^Usage: tollgate ${path.join(" ")}\\s`));
    expect(io.errors).toEqual([]);
  });

  it.each([
    [[], "tollgate: missing command"],
    [["frobnicate"], 'tollgate: unknown command "frobnicate"'],
    [["worker"], "tollgate worker: --gateway is required"],
    [["api", "--gateway", "g.ts", "--bogus"], "tollgate api: unknown option --bogus"],
    [
      ["worker", "--gateway", "g.ts", "--concurrency", "0"],
      "tollgate worker: --concurrency must be an integer from 1 to 1000",
    ],
    [
      ["worker", "--gateway", "g.ts", "--queues", "runs,jobs"],
      "tollgate worker: --queues takes a comma-separated list",
    ],
    [["api", "--gateway", "g.ts", "--port", "http"], "tollgate api: --port must be an integer"],
    [["model-server", "extra"], 'tollgate model-server: unexpected argument "extra"'],
    [["demo", "--fast"], "tollgate demo: unknown option --fast"],
    [
      ["runs"],
      "tollgate runs: missing command: one of submit, list, get, events, cancel, rerun, resume, fork",
    ],
    [["runs", "delete"], 'tollgate runs: unknown command "delete"'],
    [["runs", "rerun"], "tollgate runs rerun: missing <runId>"],
    [["runs", "resume"], "tollgate runs resume: missing <runId>"],
    [["runs", "fork", "r1"], "tollgate runs fork: --from-call is required"],
    [["runs", "fork", "r1", "--from-call", "c1", "--input", "{"], "tollgate runs fork: --input must be JSON"],
    [["runs", "list", "--limit", "501"], "tollgate runs list: --limit must be an integer from 1 to 500"],
    [["runs", "get"], "tollgate runs get: missing <runId>"],
    [
      ["runs", "submit", "--user", "u", "--user-context", "{}", "hi"],
      "tollgate runs submit: give --user or --user-context",
    ],
    [["runs", "submit", "--metadata", "{oops", "hi"], "tollgate runs submit: --metadata must be JSON"],
    [["approvals", "approve", "a1", "--input", "{"], "tollgate approvals approve: --input must be JSON"],
    [["approvals", "reject"], "tollgate approvals reject: missing <approvalId>"],
    [["approvals", "export", "--format", "csv"], "tollgate approvals export: --since is required"],
    [
      ["approvals", "export", "--since", "7d", "--json", "--format", "csv"],
      "tollgate approvals export: give --json or --format csv, not both",
    ],
    [
      ["approvals", "export", "--since", "7d", "--format", "xml"],
      'tollgate approvals export: --format must be jsonl, csv or table, got "xml"',
    ],
    [
      ["runs", "get", "r1", "--output", "yaml"],
      'tollgate runs get: --output must be table or json, got "yaml"',
    ],
    [
      ["approvals", "list", "--json", "--output", "table"],
      "tollgate approvals list: give --json or --output table, not both",
    ],
    [
      ["runs", "events", "r1", "--until", "parked"],
      "tollgate runs events: --until must be one of run-queued",
    ],
    [
      ["approvals", "export", "--since", "last week", "--format", "csv"],
      'tollgate approvals export: --since must be an ISO 8601 date or date-time, or a time ago such as 7d or 12h, got "last week"',
    ],
    [
      ["approvals", "export", "--since", "7d", "--format", "csv", "--status", "maybe"],
      "tollgate approvals export: --status must be one of pending, decided",
    ],
    [
      ["approvals", "list", "--limit", "0"],
      "tollgate approvals list: --limit must be an integer from 1 to 1000",
    ],
  ])("%j is a usage error (exit 2)", async (args, message) => {
    const io = captureIo({ TOLLGATE_URL: "http://127.0.0.1:9" });
    expect(await runCli(args, io)).toBe(2);
    expect(io.errors[0]).toContain(message);
    expect(io.errors[1]).toMatch(/^Run "tollgate.* --help" for usage\.$/);
    expect(io.out).toEqual([]);
  });

  it("stops on a bad environment value with one line naming the variable, exit 1, no stack", async () => {
    const io = captureIo({ TOLLGATE_CONCURRENCY: "lots", REDIS_URL: "localhost" });
    expect(await runCli(["worker", "--gateway", "examples/support-desk/gateway.ts"], io)).toBe(1);
    expect(io.errors).toHaveLength(1);
    expect(io.errors[0]).toMatch(/^tollgate: Invalid environment: /);
    expect(io.errors[0]).toContain("REDIS_URL: ");
    expect(io.errors[0]).toContain("TOLLGATE_CONCURRENCY: ");
    expect(io.errors[0]).not.toMatch(/\n\s+at /);
  });

  it("refuses to start a worker without a model", async () => {
    const io = captureIo({});
    expect(await runCli(["worker", "--gateway", "examples/support-desk/gateway.ts"], io)).toBe(1);
    expect(io.errors).toEqual([
      expect.stringMatching(/^tollgate: no model: set OPENAI_API_KEY or OPENAI_BASE_URL/),
    ]);
  });

  it("names the gateway module that has no default gateway export", async () => {
    const io = captureIo({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
    const code = await runCli(["worker", "--gateway", "test/unit/cli/fixtures/no-default.mjs"], io);
    expect(code).toBe(1);
    expect(io.errors).toEqual([
      expect.stringMatching(
        /^tollgate: .*fixtures\/no-default\.mjs has no default export made by defineGateway/,
      ),
    ]);
  });

  it("refuses API tokens set twice before starting anything", async () => {
    const io = captureIo({ TOLLGATE_API_TOKENS: "[]", TOLLGATE_API_TOKENS_FILE: "/nonexistent" });
    expect(await runCli(["api", "--gateway", "examples/support-desk/gateway.ts"], io)).toBe(1);
    expect(io.errors[0]).toMatch(/^tollgate: Set either TOLLGATE_API_TOKENS or TOLLGATE_API_TOKENS_FILE/);
  });

  it("refuses to start the API without tokens unless --insecure", async () => {
    const io = captureIo({});
    expect(await runCli(["api", "--gateway", "examples/support-desk/gateway.ts"], io)).toBe(1);
    expect(io.errors).toEqual([expect.stringMatching(/^tollgate: no API tokens: set TOLLGATE_API_TOKENS/)]);
  });

  it("says where it looked when the API cannot be reached", async () => {
    const port = await freePort();
    const io = captureIo({ TOLLGATE_URL: `http://127.0.0.1:${port}` });
    expect(await runCli(["runs", "get", "run_1"], io)).toBe(1);
    expect(io.errors).toEqual([
      expect.stringMatching(
        new RegExp(
          `^tollgate: cannot reach the Tollgate API at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`,
        ),
      ),
    ]);
  });

  it("warns about TOLLGATE_ variables it does not know", async () => {
    const io = captureIo({ TOLLGATE_CONCURENCY: "4" });
    expect(await runCli(["--version"], io)).toBe(0);
    expect(io.errors).toEqual([
      expect.stringContaining(
        "TOLLGATE_CONCURENCY is not a Tollgate setting and is ignored (did you mean TOLLGATE_CONCURRENCY?)",
      ),
    ]);
  });
});
