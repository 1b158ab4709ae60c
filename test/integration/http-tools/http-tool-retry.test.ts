import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpToolsGateway } from "../../fixtures/http-tools-gateway.js";
import { type IChildWorker, spawnChildWorker } from "../../helpers/child-worker.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { HttpToolService, httpToolTestSecret } from "../../helpers/http-tool-service.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const gatewayModule = new URL("../../fixtures/http-tools-gateway.ts", import.meta.url).href;
const env = { ORDERS_TOOL_SECRET: httpToolTestSecret, ORDERS_TOKEN: "token-from-env" };

/**
 * At-least-once delivery seen from the tool service: a worker process SIGKILLed while its HTTP call is in
 * flight; the call's job runs again on another worker, with the same Idempotency-Key.
 */
describe("HTTP tool retried after a worker crash", () => {
  let service: HttpToolService;
  let harness: IHarness;
  let child: IChildWorker | undefined;
  beforeAll(async () => {
    service = await HttpToolService.start();
    harness = await createHarness(httpToolsGateway(service.port, env), "http-tool-retry");
  });
  afterAll(async () => {
    if (child && child.child.exitCode === null && child.child.signalCode === null) {
      child.child.kill("SIGKILL");
      await child.exited;
    }
    await harness?.close();
    await service?.close();
  });

  it("the second attempt carries the call id of the first as its Idempotency-Key, signed again", async () => {
    child = spawnChildWorker({
      prefix: harness.prefix,
      modelUrl: harness.model.url,
      gatewayModule,
      env: { ...env, HTTP_TOOL_SERVICE_PORT: String(service.port) },
    });
    await child.ready;
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "held_once", input: {} }] }, { text: "after the retry" }),
      userContext: { userId: "u-http-retry" },
    });
    // The service holds the first call open; the worker that sent it dies mid-request.
    await waitUntil(() => service.callsTo("/hold-first").length === 1);
    child.child.kill("SIGKILL");
    expect(await child.exited).toBe("SIGKILL");

    await harness.startWorker();
    const response = await harness.client.wait(runId, { timeoutMs: 30_000 });
    expect(response.status).toBe("completed");
    const part = response.toolResults[0]!;
    expect(part).toMatchObject({ outcome: "ok", output: { done: true, callId: part.callId } });
    const calls = service.callsTo("/hold-first");
    expect(calls).toHaveLength(2);
    expect(calls.every((call) => call.verified)).toBe(true);
    expect(calls.map((call) => call.headers["idempotency-key"])).toEqual([part.callId, part.callId]);
    expect(calls.map((call) => call.call?.callId)).toEqual([part.callId, part.callId]);
    // A child process starts slowly on a loaded 2-core machine, then the lock must expire: a bound, not a goal.
  }, 90_000);
});
