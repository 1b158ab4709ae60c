import { type FSWatcher, watch } from "node:fs";
import type { Logger } from "../../observability/index.js";
import { readApiTokensFile } from "./api-tokens.js";
import type { StaticTokens } from "./token-verifier.js";

/** A burst of writes (an editor's save, a secret mount's symlink swap) is read once, after it settles. */
export const TOKEN_RELOAD_DEBOUNCE_MS = 200;

export interface ITokenReloader {
  /** Re-reads the file now (what SIGHUP does); a bad file keeps the current tokens. */
  reload(): Promise<void>;
  close(): void;
}

/**
 * Re-reads the tokens file on SIGHUP and when it changes, so tokens rotate without a restart. A file
 * that fails to read or parse leaves the current tokens in place (an error is logged, naming no token),
 * so a half-written file never locks everyone out. `alsoReload` runs beside it (a JWKS file).
 */
export function watchTokensFile(
  file: string,
  tokens: StaticTokens,
  logger: Logger,
  alsoReload: () => Promise<void> = async () => {},
  signalSource: Pick<NodeJS.Process, "on" | "off"> = process,
): ITokenReloader {
  let timer: NodeJS.Timeout | undefined;
  const reload = async () => {
    try {
      const next = await readApiTokensFile(file);
      tokens.replace(next);
      await alsoReload();
      logger.info({ tokens: next.length }, "API tokens reloaded");
    } catch (error) {
      logger.error({ err: error }, "API tokens not reloaded: the current ones stay in use");
    }
  };
  const onSignal = () => void reload();
  signalSource.on("SIGHUP", onSignal);
  let watcher: FSWatcher | undefined;
  try {
    // The directory is watched, not the file: a secret mount or an atomic rename replaces the file,
    // and a watch on the old inode would see nothing after the first swap.
    watcher = watch(dirOf(file), { persistent: false }, () => {
      clearTimeout(timer);
      timer = setTimeout(onSignal, TOKEN_RELOAD_DEBOUNCE_MS);
    });
  } catch (error) {
    logger.warn({ err: error }, "the tokens file cannot be watched: reload it with SIGHUP");
  }
  return {
    reload,
    close() {
      clearTimeout(timer);
      watcher?.close();
      signalSource.off("SIGHUP", onSignal);
    },
  };
}

function dirOf(file: string): string {
  const slash = file.lastIndexOf("/");
  return slash <= 0 ? (slash === 0 ? "/" : ".") : file.slice(0, slash);
}
