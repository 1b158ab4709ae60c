/**
 * `npx tsx bench/trace-run.ts [runs]`: the Redis commands of one Tollgate run, as MONITOR sees them, on a
 * private redis-server with an in-process worker (after a warm-up). For finding round trips to cut; not
 * part of `npm run bench`.
 */
import { Redis } from "ioredis";
import { tollgateInProcess } from "./contenders/tollgate-in-process.js";
import { startModelServer } from "./lib/child-services.js";
import { startPrivateRedis } from "./lib/private-redis.js";

const traced = Number(process.argv[2] ?? 1);
const redis = await startPrivateRedis();
const model = await startModelServer();
const tollgate = await tollgateInProcess({
  redisUrl: redis.url,
  modelUrl: model.url,
  prefix: "trace",
  concurrency: 4,
});
try {
  for (let index = 0; index < 20; index++) await tollgate.run(`warm-${index}`);
  const monitor = new Redis(redis.url);
  const lines: string[] = [];
  const session = await monitor.monitor();
  session.on("monitor", (_time: string, args: string[], source: string) => {
    lines.push(
      `${source} ${args.map((arg) => (arg.length > 80 ? `${arg.slice(0, 77)}...` : arg)).join(" ")}`,
    );
  });
  const started = performance.now();
  for (let index = 0; index < traced; index++) await tollgate.run(`traced-${index}`);
  const elapsed = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 200));
  session.disconnect();
  monitor.disconnect();
  for (const line of lines) console.log(line);
  const topLevel = lines.filter((line) => !line.startsWith("lua"));
  console.log(
    `\n${topLevel.length / traced} client commands per run, ${lines.length / traced} in all; ${(elapsed / traced).toFixed(2)} ms per run`,
  );
} finally {
  await tollgate.close();
  await model.stop();
  await redis.stop();
}
process.exit(0);
