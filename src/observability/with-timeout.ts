/**
 * Rejects when `promise` has not settled within `timeoutMs`. A scrape-time read from Redis must
 * not hang the scrape: with the offline queue on, an ioredis call waits for as long as Redis is down.
 */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${timeoutMs} ms`)), timeoutMs);
    // A pending scrape must not keep a process alive that is shutting down.
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
