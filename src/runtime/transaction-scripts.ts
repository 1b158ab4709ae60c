import type { IRedisTransaction, RedisClient } from "bullmq";
import type { ChainableCommander } from "ioredis";
import type { Logger } from "pino";

/** A script as ioredis' `defineCommand` keeps it (what BullMQ defines its scripts with). */
interface IDefinedScript {
  lua: string;
  sha: string;
  numberOfKeys: number | null;
}

/** A MULTI whose scripts go by SHA, with the scripts it used (to load them first). */
export type TShaTransaction = IRedisTransaction & { scripts: Map<string, IDefinedScript> };

/**
 * A MULTI that BullMQ's `Job#addJob` can add to (it calls `runCommand`), its scripts (as defined on
 * `definitions`, BullMQ's queue connection) sent by EVALSHA. The MULTI is on another connection, one with
 * no ioredis scripts: ioredis copies a connection's scripts into each of its MULTIs (64 on BullMQ's).
 * Scripts in a MULTI by EVALSHA, loaded before the MULTI where the connection may not know them. Why not
 * ioredis' own scripts in a MULTI: ioredis sends a script whole (EVAL) the first time on a socket and
 * then marks it known, even when that EVAL was refused while queued (a full Redis); from then on every
 * MULTI met NOSCRIPT inside EXEC, where the other commands still ran.
 */
export function withScriptsBySha(definitions: RedisClient, multi: ChainableCommander): TShaTransaction {
  const withShas = multi as unknown as TShaTransaction;
  const client = definitions;
  withShas.scripts = new Map();
  const raw = multi as unknown as { evalsha(...args: unknown[]): unknown };
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

/** A connection that can load scripts; a cluster client also lists its masters. */
interface IScriptLoader {
  script(subcommand: "LOAD", lua: string): Promise<unknown>;
  nodes?(role: "master"): IScriptLoader[];
}

/**
 * Where a script must be loaded: the connection's server, or on a cluster every master (SCRIPT LOAD
 * without a key goes to any node, and the MULTI runs on its slot's master, which may be another).
 */
function serversOf(client: IScriptLoader): IScriptLoader[] {
  return typeof client.nodes === "function" ? client.nodes("master") : [client];
}

function socketOf(client: IScriptLoader): object {
  return (client as unknown as { stream?: object }).stream ?? client;
}

/**
 * SCRIPT LOAD of the scripts this socket has not been seen to hold: once per socket and script. Returns
 * undefined, at once, when the socket holds them all (nearly always): nothing to wait for, so a caller
 * need not await, nor bound the wait with a timer (issue 26, main-thread CPU).
 */
export function loadScriptsOnce(
  client: IScriptLoader,
  scripts: Map<string, IDefinedScript>,
): Promise<void> | undefined {
  const socket = socketOf(client);
  const known = loaded.get(socket);
  let missing: IDefinedScript[] | undefined;
  for (const script of scripts.values()) {
    if (known?.has(script.sha)) continue;
    missing ??= [];
    missing.push(script);
  }
  if (missing === undefined) return undefined;
  return loadScripts(client, socket, known ?? new Set<string>(), missing);
}

async function loadScripts(
  client: IScriptLoader,
  socket: object,
  known: Set<string>,
  missing: IDefinedScript[],
): Promise<void> {
  await Promise.all(
    serversOf(client).flatMap((server) => missing.map((script) => server.script("LOAD", script.lua))),
  );
  for (const script of missing) known.add(script.sha);
  loaded.set(socket, known);
}

/** What a queue's backend gives: its connection, once ready. */
interface IQueueBackend {
  readonly client: Promise<RedisClient>;
}

/** The queues' connections (BullMQ's script definitions), by backend, once they were ready. */
const readyClients = new WeakMap<IQueueBackend, RedisClient>();

/**
 * A queue backend's connection, where BullMQ's scripts are defined: the connection itself once it was
 * ready before (no promise to await, nor a timer to bound the wait), else the backend's promise of it.
 */
export function queueClientOf(backend: IQueueBackend): RedisClient | Promise<RedisClient> {
  const ready = readyClients.get(backend);
  if (ready !== undefined) return ready;
  return backend.client.then((client) => {
    readyClients.set(backend, client);
    return client;
  });
}

/** The server lost its scripts (SCRIPT FLUSH, a restart behind the same socket): load them again. */
export function forgetLoadedScripts(client: IScriptLoader): void {
  loaded.delete(socketOf(client));
}

/** What EXEC answers: each queued command's error or reply, in order. */
export type TExecReplies = Array<[Error | null, unknown]>;

/**
 * Sends the MULTI's EXEC between two debug marks, "<what> sending" and "<what> sent": the crash tests
 * kill a worker at either. By the second the transaction is written to the socket: a crash from there
 * may leave it done, or not, never half.
 */
function execMarked(
  multi: ChainableCommander,
  logger: Pick<Logger, "debug"> | undefined,
  fields: Record<string, unknown>,
  what: string,
): Promise<TExecReplies> {
  logger?.debug(fields, `${what} sending`);
  const exec = multi.exec() as Promise<TExecReplies>;
  logger?.debug(fields, `${what} sent`);
  return exec;
}

/** A connection a transaction goes on: it opens MULTIs and loads scripts. */
export interface ITransactionClient extends IScriptLoader {
  multi(): ChainableCommander;
}

/**
 * Sends one MULTI/EXEC whose scripts go by SHA (as `definitions` defines them), built by `build`, and
 * answers its replies. `gate` names the error of the script the transaction turns on (null when it ran):
 * refused with NOSCRIPT (the slot's master lost its scripts in a restart or a failover), the scripts are
 * loaded again and the same transaction is built and sent again, at most `maxTransactionAttempts` times;
 * any other error of it is thrown. Replies of the other commands are the caller's to read. The EXEC goes
 * out between the crash tests' marks (`execMarked`: "<what> sending", "<what> sent").
 */
export async function sendScriptedTransaction(
  client: ITransactionClient,
  definitions: RedisClient,
  build: (multi: ChainableCommander, transaction: TShaTransaction) => Promise<void> | void,
  gate: (replies: TExecReplies) => Error | null,
  marks: { logger?: Pick<Logger, "debug">; fields: Record<string, unknown>; what: string },
): Promise<TExecReplies> {
  for (let attempt = 1; ; attempt++) {
    const multi = client.multi();
    const transaction = withScriptsBySha(definitions, multi);
    await build(multi, transaction);
    const loading = loadScriptsOnce(client, transaction.scripts);
    if (loading) await loading;
    // Assigned, not spread: a spread clone given a field it lacks costs a map per transaction (withFields).
    const fields = Object.assign({}, marks.fields, { attempt });
    const replies = await execMarked(multi, marks.logger, fields, marks.what);
    const error = gate(replies);
    if (error === null) return replies;
    if (!error.message.startsWith("NOSCRIPT") || attempt >= maxTransactionAttempts) throw error;
    forgetLoadedScripts(client);
  }
}

/** A transaction is sent at most this often when the slot's master lacks its scripts. */
const maxTransactionAttempts = 3;
