import type { IRedisTransaction, RedisClient } from "bullmq";

/** A script as ioredis' `defineCommand` keeps it (what BullMQ defines its scripts with). */
interface IDefinedScript {
  lua: string;
  sha: string;
  numberOfKeys: number | null;
}

/** A MULTI whose scripts go by SHA, with the scripts it used (to load them first). */
export type TShaTransaction = IRedisTransaction & { scripts: Map<string, IDefinedScript> };

/**
 * Scripts in a MULTI by EVALSHA, loaded before the MULTI where the connection may not know them. Why not
 * ioredis' own scripts in a MULTI: ioredis sends a script whole (EVAL) the first time on a socket and
 * then marks it known, even when that EVAL was refused while queued (a full Redis); from then on every
 * MULTI met NOSCRIPT inside EXEC, where the other commands still ran.
 */
export function withScriptsBySha(client: RedisClient, transaction: IRedisTransaction): TShaTransaction {
  const withShas = transaction as TShaTransaction;
  withShas.scripts = new Map();
  const raw = transaction as unknown as { evalsha(...args: unknown[]): unknown };
  withShas.runCommand = (name: string, args: unknown[]) => {
    const script = definedScript(client, name);
    withShas.scripts.set(name, script);
    raw.evalsha(script.sha, script.numberOfKeys ?? 0, ...args.flat());
    return withShas;
  };
  return withShas;
}

function definedScript(client: RedisClient, name: string): IDefinedScript {
  const scripts = (client as unknown as { scriptsSet?: Record<string, IDefinedScript> }).scriptsSet;
  const script = scripts?.[name];
  if (!script) throw new Error(`No script ${name} is defined on the queues' connection.`);
  return script;
}

/** Connections (by socket) known to hold the scripts their MULTIs use. */
const loaded = new WeakMap<object, Set<string>>();

function socketOf(client: RedisClient): object {
  return (client as unknown as { stream?: object }).stream ?? client;
}

/** SCRIPT LOAD of the scripts this socket has not been seen to hold: once per socket and script. */
export async function loadScriptsOnce(
  client: RedisClient,
  scripts: Map<string, IDefinedScript>,
): Promise<void> {
  const socket = socketOf(client);
  const known = loaded.get(socket) ?? new Set<string>();
  const missing = [...scripts.values()].filter((script) => !known.has(script.sha));
  if (missing.length === 0) return;
  const raw = client as unknown as { script(subcommand: "LOAD", lua: string): Promise<string> };
  await Promise.all(missing.map((script) => raw.script("LOAD", script.lua)));
  for (const script of missing) known.add(script.sha);
  loaded.set(socket, known);
}

/** The server lost its scripts (SCRIPT FLUSH, a restart behind the same socket): load them again. */
export function forgetLoadedScripts(client: RedisClient): void {
  loaded.delete(socketOf(client));
}
