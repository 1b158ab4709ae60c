import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TollgateApiClient } from "../../src/cli/http/api-client.js";
import type { IServerSentEvent } from "../../src/cli/http/sse-reader.js";
import type { IGatewayResponse } from "../../src/contracts/index.js";
import { testRedisUrl } from "../helpers/redis-url.js";
import { script } from "../helpers/script.js";
import { deletePrefix, uniquePrefix } from "../helpers/test-prefix.js";
import { waitUntil } from "../helpers/wait-until.js";
import { type ICliProcess, logFields, startCli } from "./cli-process.js";

/*
 * The CLI as an operator runs it: `tollgate model-server`, `tollgate worker` and `tollgate api` as real
 * processes (node bin/tollgate.js, the TypeScript source through tsx), a run with an approval driven
 * over HTTP and through the operator commands, then SIGTERM to each and a clean exit.
 */

const gateway = "examples/support-desk/gateway.ts";
const approver = "e2e-reviewer";

function readLogLine(message: string) {
  return (line: string) => logFields(line)?.msg === message;
}

describe("tollgate api, worker and model-server as processes", () => {
  const prefix = uniquePrefix("e2e-cli");
  const token = randomBytes(24).toString("base64url");
  // The run is submitted by a service of its own: its requester never decides its approvals.
  const requesterToken = randomBytes(24).toString("base64url");
  const processes: ICliProcess[] = [];
  let model: ICliProcess;
  let worker: ICliProcess;
  let api: ICliProcess;
  let apiUrl = "";
  let metricsPort = 0;

  beforeAll(async () => {
    model = startCli(["model-server", "--port", "0"], {});
    processes.push(model);
    const modelLine = await model.waitForLine((line) => line.includes("listening on http"));
    const modelUrl = modelLine.slice(modelLine.indexOf("http"));

    const shared = { REDIS_URL: testRedisUrl, TOLLGATE_PREFIX: prefix, LOG_LEVEL: "info" };
    worker = startCli(["worker", "--gateway", gateway, "--metrics-port", "0", "--concurrency", "4"], {
      ...shared,
      OPENAI_BASE_URL: modelUrl,
      TOLLGATE_SHUTDOWN_TIMEOUT_MS: "5000",
    });
    api = startCli(["api", "--gateway", gateway, "--port", "0"], {
      ...shared,
      TOLLGATE_API_TOKENS: JSON.stringify([
        { token, subject: approver, roles: ["admin"] },
        { token: requesterToken, subject: "e2e-backend", roles: ["runs:write", "runs:read"] },
      ]),
    });
    processes.push(worker, api);
    const workerLine = await worker.waitForLine(readLogLine("worker metrics at /metrics"));
    metricsPort = Number(logFields(workerLine)?.metricsPort);
    const apiLine = await api.waitForLine(readLogLine("tollgate api listening"));
    apiUrl = String(logFields(apiLine)?.url);
    await waitUntil(async () => (await fetch(`${apiUrl}/healthz`).catch(() => undefined))?.ok, {
      message: "GET /healthz answers 200",
    });
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(processes.map((process) => process.stop("SIGKILL")));
    await deletePrefix(prefix);
  });

  const operatorEnv = () => ({ TOLLGATE_URL: apiUrl, TOLLGATE_TOKEN: token });

  it("runs a conversation with an approval over HTTP, SSE and the operator commands", async () => {
    // Submitted with the operator command, which prints the 202 body as JSON.
    const submit = startCli(
      [
        "runs",
        "submit",
        "--user",
        "u-ada",
        script(
          { calls: [{ name: "lookup_order", input: { orderId: "A-1002" } }] },
          {
            calls: [
              {
                name: "refund",
                input: { orderId: "A-1002", chargeId: "ch_1002", amount: 180, reason: "arrived broken" },
              },
            ],
          },
          { text: "Refunded 120 EUR." },
        ),
      ],
      { TOLLGATE_URL: apiUrl, TOLLGATE_TOKEN: requesterToken },
    );
    expect(await submit.exited).toEqual({ code: 0, signal: null });
    const { runId } = JSON.parse(submit.output()) as { runId: string };
    expect(runId).toMatch(/^run_/);

    // `tollgate runs events` follows the same stream in its own process until the run finishes.
    const follower = startCli(["runs", "events", runId], operatorEnv());

    // The test reads the Server-Sent Events itself too, and decides the approval when the call parks.
    const client = new TollgateApiClient({ baseUrl: apiUrl, token });
    const events: IServerSentEvent[] = [];
    let approvalId: string | undefined;
    for await (const event of client.runEvents(runId, { signal: AbortSignal.timeout(60_000) })) {
      events.push(event);
      if (event.event === "tool-call-parked") {
        const data = JSON.parse(event.data) as { data: { approvalId: string; toolName: string } };
        expect(data.data.toolName).toBe("refund");
        approvalId = data.data.approvalId;
        await waitUntil(
          async () =>
            (
              await fetch(`${apiUrl}/v1/approvals/${approvalId}`, {
                headers: { authorization: `Bearer ${token}` },
              })
            ).ok,
          { message: "the approval record exists" },
        );
        const approve = startCli(
          [
            "approvals",
            "approve",
            approvalId,
            "--input",
            JSON.stringify({ orderId: "A-1002", chargeId: "ch_1002", amount: 120, reason: "arrived broken" }),
            "--comment",
            "capped",
          ],
          operatorEnv(),
        );
        expect(await approve.exited).toEqual({ code: 0, signal: null });
        expect(JSON.parse(approve.output())).toMatchObject({
          approvalId,
          status: "approved",
          decision: { approver, editedInput: { amount: 120 } },
        });
      }
      if (event.event === "run-finished") break;
    }
    expect(approvalId).toBeDefined();
    expect(events.map((event) => event.event)).toEqual(
      expect.arrayContaining([
        "run-started",
        "model-replied",
        "tool-call-parked",
        "approval-decided",
        "run-finished",
      ]),
    );
    expect(events.every((event) => event.id !== undefined)).toBe(true);

    const view = await client.request<{ response: IGatewayResponse }>({
      method: "GET",
      path: `/v1/runs/${runId}`,
    });
    expect(view.response).toMatchObject({ status: "completed", text: "Refunded 120 EUR." });
    const refund = view.response.toolResults.find((part) => part.toolName === "refund");
    expect(refund).toMatchObject({
      outcome: "ok",
      input: { amount: 120 },
      output: { amount: 120, status: "refunded" },
      approval: { decision: "approved", approver, comment: "capped", editedInput: { amount: 120 } },
    });

    expect(await follower.exited).toEqual({ code: 0, signal: null });
    const followed = follower
      .output()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: string; event: string; data: { type: string } });
    expect(followed.at(-1)).toMatchObject({ event: "run-finished", data: { type: "run-finished" } });
    expect(followed.map((line) => line.event)).toContain("approval-decided");

    const get = startCli(["runs", "get", runId], operatorEnv());
    expect(await get.exited).toEqual({ code: 0, signal: null });
    expect(JSON.parse(get.output())).toMatchObject({ runId, status: "completed" });
  }, 120_000);

  it("serves worker metrics on --metrics-port and API metrics on /metrics", async () => {
    const workerMetrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(workerMetrics.status).toBe(200);
    expect(await workerMetrics.text()).toContain("tollgate_tool_calls_total");
    const apiMetrics = await fetch(`${apiUrl}/metrics`);
    expect(apiMetrics.status).toBe(200);
  });

  it("rejects an operator command without a valid token with exit 1 and the API's error", async () => {
    const list = startCli(["approvals", "list"], {
      TOLLGATE_URL: apiUrl,
      TOLLGATE_TOKEN: "wrong-token-value",
    });
    expect(await list.exited).toEqual({ code: 1, signal: null });
    expect(list.errorOutput()).toMatch(/GET \/v1\/approvals failed: 401 TG_UNAUTHORIZED/);
  });

  it("stops each process cleanly on SIGTERM (exit code 0)", async () => {
    const [apiExit, workerExit, modelExit] = await Promise.all([api.stop(), worker.stop(), model.stop()]);
    expect(apiExit).toEqual({ code: 0, signal: null });
    expect(workerExit).toEqual({ code: 0, signal: null });
    expect(modelExit).toEqual({ code: 0, signal: null });
    expect(api.output()).toContain("tollgate api stopped");
    expect(worker.output()).toContain("worker stopped");
    for (const process of [api, worker, model]) {
      expect(process.errorOutput()).not.toMatch(/"level":(50|60)/);
    }
  }, 60_000);
});
