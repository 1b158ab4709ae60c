/**
 * Makes `npm test` work on a fresh machine with nothing by hand: a Redis to test against (the one at
 * REDIS_URL or 127.0.0.1:6379, else a private redis-server on a free port, stopped at the end) and
 * promtool for the metrics checks and chromium for the console's browser tests (installed from Debian's
 * packages when missing and possible).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { type IPrivateRedis, startPrivateRedis } from "../src/cli/demo/private-redis.js";
import { redisAnswers } from "../src/cli/redis/redis-ping.js";

let privateRedis: IPrivateRedis | undefined;

export async function setup(): Promise<void> {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  if (!(await redisAnswers(url))) {
    if (!hasCommand("redis-server")) installDebianPackage("redis-server", "redis-server");
    privateRedis = await startPrivateRedis({ timeoutMs: 10_000 });
    process.env.REDIS_URL = privateRedis.url;
    console.log(`tests: no Redis at ${url}; started a private redis-server at ${privateRedis.url}`);
  }
  if (!hasCommand("promtool")) installDebianPackage("prometheus", "promtool");
  if (!process.env.CHROMIUM_PATH && !existsSync("/usr/bin/chromium"))
    installDebianPackage("chromium", "chromium");
}

export async function teardown(): Promise<void> {
  await privateRedis?.stop();
}

function hasCommand(name: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Installs a Debian package when this is a Debian machine and we are root; otherwise says what to do. */
function installDebianPackage(packageName: string, command: string): void {
  const canInstall = existsSync("/usr/bin/apt-get") && process.getuid?.() === 0;
  if (!canInstall) {
    throw new Error(
      `The tests need \`${command}\`: install the "${packageName}" package (Debian/Ubuntu: apt-get install ${packageName}; macOS: brew install ${packageName === "redis-server" ? "redis" : packageName}; for chromium elsewhere, point CHROMIUM_PATH at a Chromium binary).`,
    );
  }
  console.log(`tests: \`${command}\` is missing; installing Debian's ${packageName}`);
  const environment = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore", env: environment });
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", packageName], {
    stdio: "ignore",
    env: environment,
  });
}
