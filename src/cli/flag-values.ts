import { UsageError } from "./cli-errors.js";
import type { ICommand } from "./command.js";

/** A flag's integer value within bounds, or a UsageError naming the flag. */
export function integerFlag(
  command: Pick<ICommand, "path">,
  flag: string,
  value: string,
  bounds: { min: number; max: number },
): number {
  const parsed = /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < bounds.min || parsed > bounds.max) {
    throw new UsageError(
      `--${flag} must be an integer from ${bounds.min} to ${bounds.max}, got "${value}"`,
      command.path,
    );
  }
  return parsed;
}

/** A comma-separated flag value, trimmed, without empty items. */
export function listFlag(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** A flag whose value is JSON, or a UsageError naming the flag. */
export function jsonFlag(command: Pick<ICommand, "path">, flag: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new UsageError(
      `--${flag} must be JSON: ${error instanceof Error ? error.message : String(error)}`,
      command.path,
    );
  }
}

/** A required string flag, or a UsageError naming it. */
export function requiredFlag(
  command: Pick<ICommand, "path">,
  flag: string,
  value: string | undefined,
): string {
  if (value === undefined || value.trim() === "") {
    throw new UsageError(`--${flag} is required`, command.path);
  }
  return value;
}
