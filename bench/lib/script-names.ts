import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

/**
 * The name of every Lua script a run may send, by its SHA1: BullMQ's (from its package's script modules)
 * and Tollgate's (every exported string of src/store, src/notifications and src/observability that calls
 * redis). What a SLOWLOG entry's EVALSHA names; a script not found is named by its SHA's first 8 digits.
 */
export async function scriptNamesBySha(): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const require = createRequire(import.meta.url);
  const bullmqScripts = join(dirname(require.resolve("bullmq")), "scripts");
  for (const file of readdirSync(bullmqScripts)) {
    if (!file.endsWith(".js") || file === "index.js") continue;
    const exported = require(join(bullmqScripts, file)) as Record<
      string,
      { name?: string; content?: string }
    >;
    for (const script of Object.values(exported))
      if (script?.content) names.set(sha1(script.content), `bullmq ${script.name}`);
  }
  // Only the folders whose modules hold scripts: importing every module of src/ would run the CLI's.
  const source = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src");
  for (const folder of ["store", "notifications", "observability"]) {
    for (const file of readdirSync(join(source, folder))) {
      if (!file.endsWith(".ts")) continue;
      const exported = (await import(pathToFileURL(join(source, folder, file)).href)) as Record<
        string,
        unknown
      >;
      for (const [name, value] of Object.entries(exported))
        if (typeof value === "string" && value.includes("redis.call"))
          names.set(sha1(value), `tollgate ${name}`);
    }
  }
  return names;
}

/**
 * The script a command runs, named as `scriptNamesBySha` names it (an EVAL by its Lua's SHA1, an FCALL by
 * its function); undefined for a command that runs no script.
 */
export function scriptNameOf(
  command: string,
  firstArgument: unknown,
  names: ReadonlyMap<string, string>,
): string | undefined {
  switch (command.toLowerCase()) {
    case "evalsha":
    case "evalsha_ro": {
      const sha = String(firstArgument);
      return names.get(sha) ?? `script ${sha.slice(0, 8)}`;
    }
    case "eval":
    case "eval_ro":
      return scriptNameOf("evalsha", sha1(String(firstArgument)), names);
    case "fcall":
    case "fcall_ro":
      return `function ${String(firstArgument)}`;
    default:
      return undefined;
  }
}
