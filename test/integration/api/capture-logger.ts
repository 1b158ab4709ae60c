import { createLogger, type Logger } from "../../../src/observability/index.js";

export interface ICapturedLogger {
  logger: Logger;
  /** The lines written so far, parsed. */
  lines(): Array<Record<string, unknown>>;
  /** The raw text written so far. */
  text(): string;
}

/** The project's logger (with its redaction) writing JSON lines to memory. */
export function captureLogger(level = "info"): ICapturedLogger {
  const written: string[] = [];
  const logger = createLogger({
    level,
    pretty: false,
    destination: { write: (line: string) => void written.push(line) },
  });
  return {
    logger,
    lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => written.join(""),
  };
}
