/**
 * `npx tsx bench/streaming-cpu.ts [runs] [turns]`: where the process CPU of a streamed ~2,000-token answer
 * goes, on a private redis-server and scripted model (a process of its own, chunks 1 ms apart), 50 in
 * flight, alternating contenders batch by batch (one warm-up turn, medians over the turns):
 * Tollgate streaming on, the same with its text-delta writes skipped (`TextDeltaLog.append` answers at
 * once: what the writes cost), streaming off, and the openai SDK alone with and without `stream: true`.
 * A diagnostic for the streaming scenario's cost table (bench/scenarios/streaming.ts), not part of
 * `npm run bench`. `CPU_PROFILE=<file>` writes a V8 CPU profile of each contender's last batch (`<file>-<index>.cpuprofile`,
 * in the order above).
 */

import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import pino from "pino";
import { GatewayClient } from "../src/producer/index.js";
import { TextDeltaLog } from "../src/store/index.js";
import { startWorker } from "../src/workers/index.js";
import { benchGateway } from "./bench-gateway.js";
import { alternate, withInFlight } from "./lib/alternate.js";
import { startCli } from "./lib/child-services.js";
import { benchOpenAi } from "./lib/model-transport.js";
import { openaiAloneAnswer } from "./lib/openai-alone.js";
import { median, round } from "./lib/percentiles.js";
import { startPrivateRedis } from "./lib/private-redis.js";
import { loadAverage } from "./lib/process-stats.js";
import { countRedisRoundTrips } from "./lib/redis-round-trips.js";

const [runsArgument = "100", turnsArgument = "3"] = process.argv.slice(2);
const runs = Number(runsArgument);
const turns = Number(turnsArgument);
const answerChars = 8_000;

const originalAppend = TextDeltaLog.prototype.append;
let appends = 0;
let skipWrites = false;
TextDeltaLog.prototype.append = function (this: TextDeltaLog, ...args: Parameters<TextDeltaLog["append"]>) {
  appends++;
  return skipWrites ? Promise.resolve("appended") : originalAppend.apply(this, args);
};

function answerScript(tag: string): string {
  const text = `${tag}${" lorem ipsum dolor sit amet".repeat(Math.ceil(answerChars / 27))}`.slice(
    0,
    answerChars,
  );
  return JSON.stringify({ script: [{ text }] });
}

const logger = pino({ level: "silent" });
const redis = await startPrivateRedis();
const roundTrips = countRedisRoundTrips(Number(new URL(redis.url).port));
const model = await startCli(
  ["model-server", "--port", "0", "--chunk-delay-ms", "1"],
  {},
  /listening on http/,
);
const modelUrl = /(http:\/\/\S+)/.exec(model.readyLine)![1]!;
const workers = await Promise.all(
  [true, false].map(async (streaming) => {
    const prefix = streaming ? "cpu-on" : "cpu-off";
    const worker = await startWorker({
      gateway: benchGateway,
      runtime: { redisUrl: redis.url, prefix },
      concurrency: 50,
      model: { baseURL: modelUrl, maxRetries: 0, streaming },
      logger,
      handleSignals: false,
    });
    const client = new GatewayClient({ gateway: benchGateway, runtime: { redisUrl: redis.url, prefix } });
    return { worker, client };
  }),
);
const openai = benchOpenAi(modelUrl);

const tollgate = (name: string, client: GatewayClient, skip: boolean) => ({
  name,
  async run(input: string) {
    skipWrites = skip;
    const response = await client.ask({ input, userContext: { userId: "bench" } });
    if (response.status !== "completed" || response.text.length !== answerChars) {
      throw new Error(`${name}: ${response.status}, ${response.text.length} chars`);
    }
  },
});
const sdk = (stream: boolean) => ({
  name: `openai SDK alone, ${stream ? "stream: true" : "no stream"}`,
  async run(input: string) {
    const text = await openaiAloneAnswer(openai, input, stream);
    if (text.length !== answerChars) throw new Error(`openai alone: ${text.length} chars`);
  },
});
const contenders = [
  tollgate("Tollgate, streaming on", workers[0]!.client, false),
  tollgate("Tollgate, streaming on, text-delta writes skipped", workers[0]!.client, true),
  tollgate("Tollgate, streaming off", workers[1]!.client, false),
  sdk(true),
  sdk(false),
];

const session = new Session();
session.connect();
const cpuProfile = process.env.CPU_PROFILE;
const loads: number[] = [];
try {
  const measured = await alternate(contenders, { warmupTurns: 1, turns }, async (contender, turn) => {
    const profiling = cpuProfile !== undefined && turn === turns;
    if (profiling) {
      await session.post("Profiler.enable");
      await session.post("Profiler.setSamplingInterval", { interval: 100 });
      await session.post("Profiler.start");
    }
    const appendsBefore = appends;
    const roundTripsBefore = roundTrips.read();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await withInFlight(runs, 50, (index) => contender.run(answerScript(`~${turn}-${index}`)));
    const cpu = process.cpuUsage(cpuBefore);
    const seconds = (performance.now() - started) / 1000;
    if (profiling) {
      const file = cpuProfile.replace(/(\.cpuprofile)?$/, `-${contenders.indexOf(contender)}.cpuprofile`);
      writeFileSync(file, JSON.stringify((await session.post("Profiler.stop")).profile));
    }
    loads.push(await loadAverage());
    return {
      cpuMs: (cpu.user + cpu.system) / 1000 / runs,
      userMs: cpu.user / 1000 / runs,
      systemMs: cpu.system / 1000 / runs,
      appends: (appends - appendsBefore) / runs,
      roundTrips: (roundTrips.read() - roundTripsBefore) / runs,
      seconds,
    };
  });
  console.log(
    `${runs} answers of ${answerChars} characters per batch, 50 in flight, ${turns} turns; medians:`,
  );
  for (const [name, batches] of measured) {
    const of = (key: keyof (typeof batches)[number]) => round(median(batches.map((batch) => batch[key])), 2);
    console.log(
      `${name}: ${of("cpuMs")} ms CPU/run (user ${of("userMs")}, system ${of("systemMs")}), ` +
        `${of("appends")} text-delta writes/run, ${of("roundTrips")} socket writes to Redis/run, batch ${of("seconds")} s`,
    );
  }
  console.log(
    `load average (1 min) during batches: mean ${round(loads.reduce((a, b) => a + b, 0) / loads.length, 1)}, max ${Math.max(...loads)}`,
  );
} finally {
  session.disconnect();
  for (const { worker, client } of workers) {
    await worker.close();
    await client.close();
  }
  await model.stop();
  await redis.stop();
}
process.exit(0);
