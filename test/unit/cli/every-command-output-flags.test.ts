import { describe, expect, it } from "vitest";
import { UsageError } from "../../../src/cli/cli-errors.js";
import type { ICommand } from "../../../src/cli/command.js";
import { freePort } from "../../../src/cli/demo/free-port.js";
import { commands, runCli } from "../../../src/cli/main.js";
import { captureIo } from "./capture-io.js";

/** Every command a user can run, groups opened: found from main's list, so a new command is in. */
function leafCommands(list: readonly ICommand[]): ICommand[] {
  return list.flatMap((command) => (command.subcommands ? leafCommands(command.subcommands) : [command]));
}

const leaves = leafCommands(commands);

/** A value for each argument the usage line names (`<runId>`), not for a flag's value (`--limit <n>`). */
function argumentsOf(command: ICommand): string[] {
  const usage = command.help.split("\n")[0] ?? "";
  return [...usage.matchAll(/<(\w+)>/g)]
    .filter((match) => !/--[\w-]+ $/.test(usage.slice(0, match.index)))
    .map((match) => `${match[1]}-1`);
}

describe("every command takes --json and -o/--output", () => {
  it("finds the commands of every group", () => {
    expect(leaves.map((command) => command.path)).toEqual(
      expect.arrayContaining([
        "api",
        "demo",
        "runs cancel",
        "runs get",
        "approvals export",
        "schedules delete",
      ]),
    );
    expect(leaves.length).toBeGreaterThanOrEqual(21);
  });

  describe.each(leaves.map((command) => [command.path, command] as const))("%s", (_path, command) => {
    const positionals = argumentsOf(command);
    const check = (...flags: string[]) => {
      expect(command.check, `${command.path} is not made with defineCommand`).toBeDefined();
      return command.check?.([...positionals, ...flags], { ...captureIo(), isTerminal: true });
    };

    it.each([
      [["--json"], "json"],
      [["-o", "json"], "json"],
      [["-o", "table"], "table"],
      [["--output=table"], "table"],
      [["--json", "--output", "json"], "json"],
    ])("accepts %j and prints %s", (flags, format) => {
      expect(check(...flags)).toEqual({ format });
    });

    it("prints a table on a terminal when no flag says otherwise", () => {
      expect(check()).toEqual({ format: "table" });
    });

    it("refuses a format it does not know, naming it", () => {
      expect(() => check("-o", "yaml")).toThrow(UsageError);
      expect(() => check("-o", "yaml")).toThrow('--output must be table or json, got "yaml"');
    });

    it("says so in its help", () => {
      expect(command.help).toMatch(/^ {2}--json {2,}\S/m);
      expect(command.help).toMatch(/^ {2}-o, --output <format> {2,}table or json/m);
    });
  });

  it("runs cancel with --json goes as far as the API (it was refused as an unknown option)", async () => {
    const io = captureIo({ TOLLGATE_URL: `http://127.0.0.1:${await freePort()}` });
    expect(await runCli(["runs", "cancel", "run_1", "--json"], io)).toBe(1);
    expect(io.errors[0]).toMatch(/^tollgate: cannot reach the Tollgate API/);
  });
});
