import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * A body over the limit is refused before it has all arrived. Closing the connection right after the
 * 413 (fastify's `connection: close`) destroys a socket whose client is still sending: the kernel then
 * answers with a reset, and a client that had not read the 413 yet sees only the reset. So the rest of
 * the body is read and dropped first, up to `maxDrainBytes` (beyond that, a reset is what such a client
 * earns), and the connection is ended once the body has all arrived.
 */
export function drainOversizedBody(
  request: FastifyRequest,
  reply: FastifyReply,
  maxDrainBytes: number,
): void {
  const incoming = request.raw;
  if (reply.statusCode !== 413 || incoming.complete) return;
  // Without `connection: close`, Node reads and drops the rest of the body after the reply (its dump).
  reply.removeHeader("connection");
  let drained = 0;
  const onData = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > maxDrainBytes) incoming.socket?.destroy?.();
  };
  incoming.on("data", onData);
  incoming.once("end", () => {
    incoming.off("data", onData);
    // An injected request (tests, light-my-request) has no real socket to end.
    if (typeof incoming.socket?.end === "function") incoming.socket.end();
  });
}
