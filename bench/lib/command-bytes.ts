import { Command } from "ioredis";

/** A command as this process wrote it to a Redis socket: its name and arguments as encoded. */
export interface IWrittenCommand {
  name: string;
  arguments: readonly unknown[];
}

/**
 * Calls `listener` with every command the ioredis clients of this process write to a socket, pipelined
 * ones included. Hooked at `toWritable`, not `sendCommand` as bench/lib/client-commands.ts counts: a
 * script's first call on a connection is rewritten there from EVALSHA to EVAL with the whole Lua, and
 * a command queued while a client connects is only encoded once it is written. Installed once.
 */
export function onCommandWritten(listener: (command: IWrittenCommand) => void): void {
  type TEncoded = { name: string; args: unknown[] };
  const prototype = Command.prototype as unknown as { toWritable(this: TEncoded, socket: unknown): unknown };
  const original = prototype.toWritable;
  prototype.toWritable = function (this: TEncoded, socket: unknown) {
    const writable = original.call(this, socket);
    listener({ name: this.name, arguments: this.args });
    return writable;
  };
}

/** An argument's bytes on the wire: a Buffer as it is, a string in UTF-8, anything else as ioredis turns it into a string. */
export function argumentBytes(argument: unknown): number {
  if (Buffer.isBuffer(argument)) return argument.length;
  if (argument === null || argument === undefined) return 0;
  return Buffer.byteLength(typeof argument === "string" ? argument : String(argument));
}

/**
 * A command's bytes in RESP: `*<count>\r\n`, then each of the name and the arguments as
 * `$<length>\r\n<bytes>\r\n`. The framing is what a command of many small arguments pays most for.
 */
export function respBytes(name: string, argumentSizes: readonly number[]): number {
  const bulk = (size: number) => 1 + String(size).length + 2 + size + 2;
  const header = 1 + String(argumentSizes.length + 1).length + 2;
  return argumentSizes.reduce((sum, size) => sum + bulk(size), header + bulk(Buffer.byteLength(name)));
}
