import { createRequire } from "node:module";
import type { DestinationStream } from "pino";

const requireFromHere = createRequire(import.meta.url);

type TPrettyFactory = (options: {
  destination?: number | DestinationStream;
  sync?: boolean;
  colorize?: boolean;
}) => DestinationStream;

/**
 * A pino-pretty stream, or undefined when pino-pretty cannot be loaded. It is a dev dependency: a
 * production install has none, and a logger there must fall back to JSON lines without a word.
 * Loaded in process (not as a pino transport) so that the answer is known synchronously.
 */
export function tryLoadPrettyStream(
  destination: DestinationStream | undefined,
  moduleId = "pino-pretty",
): DestinationStream | undefined {
  try {
    const loaded: unknown = requireFromHere(moduleId);
    const factory = (typeof loaded === "function" ? loaded : (loaded as { default?: unknown }).default) as
      | TPrettyFactory
      | undefined;
    if (typeof factory !== "function") return undefined;
    return factory({ destination: destination ?? 1, sync: true, colorize: destination === undefined });
  } catch {
    return undefined;
  }
}
