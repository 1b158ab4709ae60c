import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { Redis } from "ioredis";

/** A private redis-server on a free port, so that the numbers are Tollgate's alone. */
export async function startPrivateRedis(): Promise<{ url: string; redis: Redis; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const url = `redis://127.0.0.1:${port}`;
  const redis = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true, retryStrategy: () => null });
  // Refused connections while the server starts are expected: the loop below retries.
  redis.on("error", () => undefined);
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await redis.connect();
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    redis,
    async stop() {
      redis.disconnect();
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
