/**
 * Makes `npm test` work on a fresh machine with nothing by hand: a Redis to test against (the one at
 * REDIS_URL or 127.0.0.1:6379, else a private redis-server on a free port, stopped at the end) and
 * promtool for the metrics checks (installed from Debian's packages when missing and possible).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, Socket } from "node:net";

let privateRedis: ChildProcess | undefined;

export async function setup(): Promise<void> {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  if (!(await answersPing(url))) {
    if (!hasCommand("redis-server")) installDebianPackage("redis-server", "redis-server");
    const port = await freePort();
    privateRedis = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      {
        stdio: "ignore",
      },
    );
    process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
    const deadline = Date.now() + 10_000;
    while (!(await answersPing(process.env.REDIS_URL))) {
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    console.log(`tests: no Redis at ${url}; started a private redis-server at ${process.env.REDIS_URL}`);
  }
  if (!hasCommand("promtool")) installDebianPackage("prometheus", "promtool");
}

export async function teardown(): Promise<void> {
  privateRedis?.kill("SIGTERM");
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
      `The tests need \`${command}\`: install the "${packageName}" package (Debian/Ubuntu: apt-get install ${packageName}; macOS: brew install ${packageName === "redis-server" ? "redis" : "prometheus"}).`,
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

async function answersPing(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("error", () => done(false));
    socket.connect(Number(port || 6379), hostname || "127.0.0.1", () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}

function freePort(): Promise<number> {
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
