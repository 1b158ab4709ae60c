import { describe, expect, it } from "vitest";
import { UsageError } from "../../../src/cli/cli-errors.js";
import { integerFlag, jsonFlag, listFlag, requiredFlag } from "../../../src/cli/flag-values.js";
import { parseCommandArgs, wantsHelp } from "../../../src/cli/parse-command-args.js";

const command = { path: "runs submit" };
const flags = {
  user: { type: "string" },
  wait: { type: "boolean" },
  port: { type: "string", short: "p" },
} as const;
const onePositional = { names: ["input"], required: 1 };

function usageError(run: () => unknown): UsageError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error("no UsageError");
}

describe("parseCommandArgs", () => {
  it("returns flags and positionals", () => {
    expect(
      parseCommandArgs(command, ["--user", "u1", "--wait", "-p", "80", "hello"], flags, onePositional),
    ).toEqual({
      values: { user: "u1", wait: true, port: "80" },
      positionals: ["hello"],
    });
    expect(parseCommandArgs(command, ["--user=u1", "hello"], flags, onePositional)).toMatchObject({
      values: { user: "u1" },
    });
  });

  it.each([
    [["--bogus", "x"], "unknown option --bogus"],
    [["--bogus=1", "x"], "unknown option --bogus"],
    [["-z", "x"], "unknown option -z"],
    [[], "missing <input>"],
    [["a", "b"], 'unexpected argument "b"'],
    [["--user"], "--user"],
  ])("%j is a usage error: %s", (args, message) => {
    const error = usageError(() => parseCommandArgs(command, args, flags, onePositional));
    expect(error.message).toContain(message);
    expect(error.commandPath).toBe("runs submit");
  });

  it("answers help for --help or -h, whatever else is on the line, but not after --", () => {
    expect(parseCommandArgs(command, ["--bogus", "--help"], flags, onePositional)).toBe("help");
    expect(parseCommandArgs(command, ["-h"], flags, onePositional)).toBe("help");
    expect(wantsHelp(["--", "--help"])).toBe(false);
    expect(parseCommandArgs(command, ["--", "--help"], flags, onePositional)).toMatchObject({
      positionals: ["--help"],
    });
  });
});

describe("flag values", () => {
  it("reads integers within bounds and names the flag otherwise", () => {
    expect(integerFlag(command, "port", "8080", { min: 0, max: 65_535 })).toBe(8080);
    for (const value of ["x", "1.5", "70000", "", "1e3"]) {
      expect(usageError(() => integerFlag(command, "port", value, { min: 0, max: 65_535 })).message).toMatch(
        /^--port must be an integer from 0 to 65535/,
      );
    }
  });

  it("reads lists, JSON and required values", () => {
    expect(listFlag(" runs, tools ,,")).toEqual(["runs", "tools"]);
    expect(jsonFlag(command, "input", '{"amount":120}')).toEqual({ amount: 120 });
    expect(usageError(() => jsonFlag(command, "input", "{amount")).message).toMatch(/^--input must be JSON/);
    expect(usageError(() => requiredFlag(command, "gateway", undefined)).message).toBe(
      "--gateway is required",
    );
  });
});
