/** The Redis the integration tests use; each test gets its own prefix on it. */
export const testRedisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
