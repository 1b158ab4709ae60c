import type { FastifyInstance } from "fastify";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApi } from "../../../src/api/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { apiTestGateway, apiTestTokens, bearer, silentLogger } from "./api-fixture.js";

/** One sample of a Prometheus text exposition: the series with every given label, summed; 0 when absent. */
function sampleOf(text: string, name: string, labels: Record<string, string>): number {
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) continue;
    total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

/**
 * A run cancelled through the API is counted in `tollgate_runs_finished_total{status="cancelled"}` exactly
 * once, whichever process ends it: the worker (its job still holds the run) or the API itself (no job
 * holds it any more: it is ended at once, through the same ending, counted in the API's /metrics). Real
 * Redis, BullMQ, worker and scripted model; the API's metrics scraped over its /metrics route.
 */
describe("a run cancelled through the API is counted once", () => {
  let harness: IHarness;
  let app: FastifyInstance;
  const workerRegistry = new Registry();
  beforeAll(async () => {
    harness = await createHarness(apiTestGateway, "cancel-run-metrics");
    await harness.startWorker({ registry: workerRegistry });
    app = await buildApi({
      client: harness.client,
      tokens: Object.values(apiTestTokens),
      logger: silentLogger(),
    });
  });
  afterAll(async () => {
    await app?.close();
    await harness?.close();
  });

  const cancelled = { status: "cancelled" };
  async function counts() {
    const scraped = await app.inject({ method: "GET", url: "/metrics" });
    const worker = await workerRegistry.metrics();
    return {
      api: sampleOf(scraped.body, "tollgate_runs_finished_total", cancelled),
      worker: sampleOf(worker, "tollgate_runs_finished_total", cancelled),
      apiDurations: sampleOf(scraped.body, "tollgate_run_duration_seconds_count", cancelled),
    };
  }

  async function createRun(input: string, threadId?: string): Promise<string> {
    const created = await app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: bearer("writer"),
      payload: { input, userContext: { userId: "u-1" }, ...(threadId ? { threadId } : {}) },
    });
    expect(created.statusCode).toBe(202);
    return created.json().runId as string;
  }

  async function parkedRun(threadId?: string): Promise<{ runId: string; approvalId: string }> {
    const runId = await createRun(
      script(
        { calls: [{ name: "send_email", input: { to: "a@example.com", subject: "Hi" } }] },
        { text: "ok" },
      ),
      threadId,
    );
    const [approval] = await waitUntil(async () => {
      const pending = await harness.client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    return { runId, approvalId: approval!.approvalId };
  }

  async function cancelOverHttp(runId: string) {
    const response = await app.inject({
      method: "POST",
      url: `/v1/runs/${runId}/cancel`,
      headers: bearer("writer"),
    });
    expect(response.statusCode).toBe(202);
  }

  async function finishedCancelled(runId: string) {
    const response = await harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(response.status).toBe("cancelled");
  }

  /** Waits until the approval job has handed its (cancelled) decision over, so the worker saw all it will. */
  async function approvalJobDone(approvalId: string, runId: string) {
    const { approvals } = clientInternals(harness.client).runtimeOf(runId).queues;
    await waitUntil(async () => {
      const state = await approvals.getJobState(approvalId);
      return state === "completed" || state === "failed" || state === "unknown" ? state : undefined;
    });
  }

  it("a run with a parked approval, its job holding it: ended by the worker, counted once there", async () => {
    const before = await counts();
    const { runId, approvalId } = await parkedRun();
    await cancelOverHttp(runId);
    await finishedCancelled(runId);
    await approvalJobDone(approvalId, runId);
    const after = await waitUntil(async () => {
      const now = await counts();
      return now.worker > before.worker ? now : undefined;
    });
    expect(after.worker - before.worker).toBe(1);
    expect(after.api - before.api).toBe(0);
  });

  it("a run with a parked approval whose job is lost: ended by the API, counted once in the API's metrics", async () => {
    const before = await counts();
    const { runId, approvalId } = await parkedRun();
    // The run's job is gone (a write Redis refused): no worker will end this run.
    const { runs } = clientInternals(harness.client).runtimeOf(runId).queues;
    await waitUntil(async () => ((await runs.getJobState(runId)) === "waiting-children" ? true : undefined));
    expect(await runs.remove(runId, { removeChildren: false })).toBe(1);
    await cancelOverHttp(runId);
    await finishedCancelled(runId);
    await approvalJobDone(approvalId, runId);
    const after = await counts();
    expect(after.api - before.api).toBe(1);
    expect(after.apiDurations - before.apiDurations).toBe(1);
    expect(after.worker - before.worker).toBe(0);
  });

  it("a queued run (waiting for its thread): ended by the worker, counted once", async () => {
    const before = await counts();
    const threadId = `thread-${Date.now()}`;
    const head = await parkedRun(threadId);
    const queued = await createRun(script({ text: "never" }), threadId);
    expect((await harness.client.getRun(queued)).status).toBe("queued");
    await cancelOverHttp(queued);
    await finishedCancelled(queued);
    const after = await waitUntil(async () => {
      const now = await counts();
      return now.worker > before.worker ? now : undefined;
    });
    expect(after.worker - before.worker + (after.api - before.api)).toBe(1);
    await cancelOverHttp(head.runId);
    await finishedCancelled(head.runId);
  });

  it("a queued run whose job is lost: ended by the API, counted once in the API's metrics", async () => {
    const threadId = `thread-lost-${Date.now()}`;
    const head = await parkedRun(threadId);
    const before = await counts();
    const queued = await createRun(script({ text: "never" }), threadId);
    const { runs } = clientInternals(harness.client).runtimeOf(queued).queues;
    // Once the worker has set it aside to wait for its thread, its job is lost.
    await waitUntil(async () => ((await runs.getJobState(queued)) === "delayed" ? true : undefined));
    expect(await runs.remove(queued)).toBe(1);
    await cancelOverHttp(queued);
    await finishedCancelled(queued);
    const after = await counts();
    expect(after.api - before.api).toBe(1);
    expect(after.worker - before.worker).toBe(0);
    await cancelOverHttp(head.runId);
    await finishedCancelled(head.runId);
  });
});
