import type { DestinationStream } from "pino";

/** pino's numeric levels as a reader of the transcript says them. */
const levelWords: Readonly<Record<number, string>> = {
  10: "trace",
  20: "debug",
  30: "info",
  40: "warning",
  50: "error",
  60: "fatal",
};

/**
 * A log destination for the demo: each line the services log, said in words (`tollgate demo: warning:
 * Redis persists nothing ...`), so a transcript on a terminal carries no raw JSON. An error's own message
 * follows the line's; the other fields stay out (the services' JSON logs are `tollgate worker`'s and
 * `tollgate api`'s, not the demo's).
 */
export function logInWords(write: (line: string) => void): DestinationStream {
  return {
    write(jsonLine: string) {
      for (const line of jsonLine.split("\n")) {
        if (line.trim() !== "") write(inWords(line));
      }
    },
  };
}

function inWords(jsonLine: string): string {
  let fields: { level?: unknown; msg?: unknown; err?: { message?: unknown } };
  try {
    fields = JSON.parse(jsonLine) as typeof fields;
  } catch {
    return `tollgate demo: ${jsonLine}`;
  }
  const level = typeof fields.level === "number" ? (levelWords[fields.level] ?? "log") : "log";
  const message = typeof fields.msg === "string" ? fields.msg : "";
  const cause = typeof fields.err?.message === "string" ? fields.err.message : undefined;
  return `tollgate demo: ${level}: ${[message, cause].filter((part) => part).join(": ")}`;
}
