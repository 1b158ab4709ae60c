import type { IWrittenCommand } from "./command-bytes.js";

const scriptCommands = new Set(["eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro"]);
const listedArguments = 10;
const previewCharacters = 70;

/**
 * A command's arguments, largest first, one a line: its place (a script's as the Lua sees it, KEYS[i]
 * or ARGV[i], so the argument can be found in the script), its bytes and its first characters. The
 * largest 10; the rest summed, as a script's many keys are small.
 */
export function describeArguments(command: IWrittenCommand, sizes: readonly number[]): string {
  const places = command.arguments.map((_, index) => placeOf(command, index));
  const order = sizes.map((_, index) => index).sort((a, b) => (sizes[b] ?? 0) - (sizes[a] ?? 0));
  const lines = order
    .slice(0, listedArguments)
    .map(
      (index) =>
        `  ${places[index]!.padEnd(10)} ${String(sizes[index]).padStart(7)} B  ${preview(command.arguments[index])}`,
    );
  const rest = order.slice(listedArguments);
  if (rest.length > 0)
    lines.push(
      `  ${rest.length} more arguments, ${rest.reduce((sum, index) => sum + (sizes[index] ?? 0), 0)} B`,
    );
  return lines.join("\n");
}

function placeOf(command: IWrittenCommand, index: number): string {
  if (!scriptCommands.has(command.name.toLowerCase())) return `arg ${index + 1}`;
  if (index === 0) return command.name.toLowerCase().startsWith("fcall") ? "function" : "script";
  if (index === 1) return "numkeys";
  const keyCount = Number(command.arguments[1]);
  return index - 2 < keyCount ? `KEYS[${index - 1}]` : `ARGV[${index - 1 - keyCount}]`;
}

function preview(argument: unknown): string {
  const text = Buffer.isBuffer(argument) ? argument.toString("utf8") : String(argument ?? "");
  const start = JSON.stringify(text.slice(0, previewCharacters));
  return text.length > previewCharacters ? `${start}…` : start;
}
