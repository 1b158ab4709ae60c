import net from "node:net";

/**
 * Counts this process's client round trips to one Redis: socket writes to its port. ioredis writes a
 * command in one write and a whole pipeline or MULTI … EXEC in one, so a write is one trip out and one
 * reply to wait for, whatever the number of commands in it. Installed once; child processes not seen.
 */
export function countRedisRoundTrips(redisPort: number): { read(): number } {
  let writes = 0;
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (this: net.Socket, ...args: unknown[]) {
    if (this.remotePort === redisPort) writes++;
    return (write as (...rest: unknown[]) => boolean).apply(this, args);
  } as typeof net.Socket.prototype.write;
  return { read: () => writes };
}
