/**
 * Two deployments sharing one Redis, each with an ACL user limited to its own prefix's keys and
 * channels (docs/CONFIGURATION.md, "Redis ACLs"). A worker and a client work under the user; the
 * other deployment's keys and channels are refused (NOPERM).
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IScriptedModel, startScriptedModel } from "../../../src/model/scripted/index.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { createRedis, redisTargetFrom } from "../../../src/store/index.js";
import { type ITollgateWorker, startWorker } from "../../../src/workers/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { fastRuntime } from "../../helpers/harness.js";
import { type IRedisServerProcess, startRedisServer } from "../../helpers/redis-server-process.js";
import { script } from "../../helpers/script.js";

/** The ACL rule of one deployment: its prefix's keys and channels, and the commands BullMQ needs. */
function aclUser(name: string, password: string, prefix: string): string[] {
  // One argument per word: redis-server reads `--user name rule rule ...` like a config line.
  return `${name} on >${password} resetkeys ~${prefix}:* resetchannels &${prefix}:* -@all +@read +@write +@keyspace +@scripting +@pubsub +@blocking +@transaction +@connection +info -@admin -flushall -flushdb -keys`.split(
    " ",
  );
}

describe("Redis ACL users limited to one prefix", () => {
  let server: IRedisServerProcess;
  let model: IScriptedModel;
  let worker: ITollgateWorker | undefined;
  let client: GatewayClient | undefined;
  const urlFor = (user: string, password: string) => `redis://${user}:${password}@127.0.0.1:${server.port}`;

  beforeAll(async () => {
    server = await startRedisServer([
      "--user",
      ...aclUser("tollgate-a", "secret-a", "{tollgate-a}"),
      "--user",
      ...aclUser("tollgate-b", "secret-b", "{tollgate-b}"),
    ]);
    model = await startScriptedModel({ port: 0 });
  });
  afterAll(async () => {
    await worker?.close();
    await client?.close();
    await model?.close();
    await server?.stop();
  });

  it("a worker and a client run under the user of their prefix", async () => {
    const runtime = { ...fastRuntime, redisUrl: urlFor("tollgate-a", "secret-a"), prefix: "{tollgate-a}" };
    worker = await startWorker({
      gateway: testGateway,
      runtime,
      model: { baseURL: model.url, maxRetries: 1 },
      logger: pino({ level: "silent" }),
      handleSignals: false,
    });
    client = new GatewayClient({ gateway: testGateway, runtime });
    const parked = await client.run({
      input: script({ calls: [{ name: "needs_approval", input: { amount: 42 } }] }, { text: "paid" }),
      userContext: { userId: "u-acl" },
    });
    const pending = await waitForPending(client, parked.runId);
    await client.approvals.approve(pending, { approver: "ops" });
    const response = await client.wait(parked.runId);
    expect(response.status).toBe("completed");
    expect(response.toolResults[0]).toMatchObject({ outcome: "ok", text: '{"paid":42}' });
  });

  it("the other deployment's keys and channels are refused", async () => {
    const target = redisTargetFrom({ redisUrl: urlFor("tollgate-a", "secret-a"), redisTls: false });
    const redis = createRedis(target, "worker");
    try {
      await expect(redis.get("{tollgate-b}:run:any")).rejects.toThrow(/NOPERM/);
      await expect(redis.set("{tollgate-b}:run:any", "x")).rejects.toThrow(/NOPERM/);
      await expect(redis.publish("{tollgate-b}:cancel", "run_x")).rejects.toThrow(/NOPERM/);
      await expect(redis.call("KEYS", "*")).rejects.toThrow(/NOPERM/);
      await expect(redis.call("FLUSHALL")).rejects.toThrow(/NOPERM/);
      // Its own prefix is writable.
      expect(await redis.set("{tollgate-a}:probe", "1", "PX", 1000)).toBe("OK");
    } finally {
      redis.disconnect();
    }
    // A client of deployment A pointed at B's prefix cannot submit anything there.
    const intruder = new GatewayClient({
      gateway: testGateway,
      runtime: { ...fastRuntime, redisUrl: urlFor("tollgate-a", "secret-a"), prefix: "{tollgate-b}" },
    });
    try {
      await expect(
        intruder.run({ input: script({ text: "hi" }), userContext: { userId: "u-intruder" } }),
      ).rejects.toThrow(/NOPERM/);
    } finally {
      await intruder.close();
    }
  });
});

async function waitForPending(client: GatewayClient, runId: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const [approval] = await client.approvals.list({ runId });
    if (approval) return approval.approvalId;
    if (Date.now() > deadline) throw new Error("no pending approval");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
