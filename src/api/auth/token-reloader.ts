import { createHash } from "node:crypto";
import { type FSWatcher, watch } from "node:fs";
import { readlink } from "node:fs/promises";
import { basename, dirname } from "node:path";
import type { Logger } from "../../observability/index.js";
import { parseApiTokens, readApiTokensText } from "./api-tokens.js";
import type { StaticTokens } from "./token-verifier.js";

/** A burst of writes (an editor's save, a secret mount's symlink swap) is read once, after it settles. */
export const TOKEN_RELOAD_DEBOUNCE_MS = 200;

/** Where SIGHUP comes from: the process, or a test's emitter. */
export interface ISignalSource {
  on(signal: "SIGHUP", listener: () => void): unknown;
  off(signal: "SIGHUP", listener: () => void): unknown;
}

export interface ITokenReloader {
  /** Re-reads the file now (what SIGHUP does); a bad file keeps the current tokens. */
  reload(): Promise<void>;
  close(): void;
}

/**
 * Re-reads the tokens file on SIGHUP and when its content changes, so tokens rotate without a restart.
 * A file that fails to read or parse leaves the current tokens in place (an error is logged, naming no
 * token), so a half-written file never locks everyone out. `alsoReload` runs beside it (a JWKS file).
 *
 * The directory is watched, since a secret mount or an editor replaces the file by a rename (a watch on
 * the old inode would see nothing after the first swap); but only events naming the file (or the entry
 * its symlink goes through, a Kubernetes secret's `..data`) count, and the file is reloaded only when
 * what it holds differs from what was last read. Other files changing beside it (the API's own log, a
 * swap file) cause nothing: a reload's own log line in that directory once caused the next, forever.
 */
export function watchTokensFile(
  file: string,
  tokens: StaticTokens,
  logger: Logger,
  alsoReload: () => Promise<void> = async () => {},
  signalSource: ISignalSource = process,
): ITokenReloader {
  let timer: NodeJS.Timeout | undefined;
  /** The digest of the text last read (good or bad): a change is a different digest. */
  let lastDigest: string | undefined;
  /** Names in the directory whose events may mean the file changed. */
  let watchedNames = new Set([basename(file)]);
  const read = async (trigger: "signal" | "file changed", onlyIfChanged: boolean) => {
    try {
      watchedNames = await namesLeadingTo(file);
      const text = await readApiTokensText(file);
      const digest = digestOf(text);
      if (onlyIfChanged && digest === lastDigest) return;
      lastDigest = digest;
      const next = parseApiTokens(text);
      tokens.replace(next);
      await alsoReload();
      logger.info({ tokens: next.length, trigger }, "API tokens reloaded");
    } catch (error) {
      logger.error({ err: error, trigger }, "API tokens not reloaded: the current ones stay in use");
    }
  };
  // Known at start, so that the first event of an unchanged file reloads nothing.
  void readApiTokensText(file).then(
    (text) => {
      lastDigest ??= digestOf(text);
    },
    () => undefined,
  );
  void namesLeadingTo(file).then((names) => {
    watchedNames = names;
  });
  const reload = () => read("signal", false);
  const onSignal = () => void reload();
  signalSource.on("SIGHUP", onSignal);
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(file), { persistent: false }, (_event, name) => {
      // No name (some platforms): anything may have changed; the digest tells.
      if (name !== null && !watchedNames.has(String(name))) return;
      clearTimeout(timer);
      timer = setTimeout(() => void read("file changed", true), TOKEN_RELOAD_DEBOUNCE_MS);
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

function digestOf(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The file's own name, and when it is a relative symlink the first entry of its target (`..data` for
 * `..data/tokens.json`): a Kubernetes secret is updated by swapping that entry, never the file's name.
 */
async function namesLeadingTo(file: string): Promise<Set<string>> {
  const names = new Set([basename(file)]);
  try {
    const target = await readlink(file);
    const first = target.split("/")[0];
    if (!target.startsWith("/") && first !== undefined && first !== "" && first !== ".") names.add(first);
  } catch {
    // Not a symlink (or gone for a moment during a swap): its own name is enough.
  }
  return names;
}
