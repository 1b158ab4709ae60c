import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IRunningApi, startApi } from "../../src/api/index.js";
import { freePort } from "../../src/cli/demo/free-port.js";
import { type IMetricsServer, startMetricsServer } from "../../src/observability/index.js";
import { testGateway } from "../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../helpers/harness.js";
import { script } from "../helpers/script.js";
import { waitUntil } from "../helpers/wait-until.js";

const execFileAsync = promisify(execFile);

/**
 * A real Prometheus scrapes a running API and a running worker; the runs they did are found through
 * Prometheus's HTTP query API, and promtool accepts what both serve.
 */
describe("a real Prometheus scrape", () => {
  let harness: IHarness;
  let api: IRunningApi;
  let workerMetrics: IMetricsServer;
  let prometheus: ChildProcess;
  let prometheusUrl: string;

  beforeAll(async () => {
    harness = await createHarness(testGateway, "prometheus");
    const workerRegistry = new Registry();
    await harness.startWorker({ registry: workerRegistry });
    workerMetrics = await startMetricsServer({ registry: workerRegistry, port: 0, host: "127.0.0.1" });
    api = await startApi({ client: harness.client, insecure: true, port: 0, host: "127.0.0.1" });
    const directory = mkdtempSync(join(tmpdir(), "tollgate-prometheus-"));
    const configFile = join(directory, "prometheus.yml");
    writeFileSync(
      configFile,
      [
        "global:",
        "  scrape_interval: 1s",
        "scrape_configs:",
        "  - job_name: tollgate-api",
        `    static_configs: [{ targets: ["127.0.0.1:${api.port}"] }]`,
        "  - job_name: tollgate-worker",
        `    static_configs: [{ targets: ["127.0.0.1:${workerMetrics.port}"] }]`,
        "",
      ].join("\n"),
    );
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      "prometheus",
      [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${join(directory, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: "ignore" },
    );
    await waitUntil(async () => (await fetch(`${prometheusUrl}/-/ready`).catch(() => undefined))?.ok, {
      timeoutMs: 30_000,
      message: "prometheus ready",
    });
  }, 60_000);

  afterAll(async () => {
    prometheus?.kill("SIGTERM");
    await api?.close();
    await workerMetrics?.close();
    await harness?.close();
  });

  async function query(
    promql: string,
  ): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
    const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await response.json()) as {
      data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
    };
    return body.data.result;
  }

  it("finds the runs and a tool-latency histogram through Prometheus's query API", async () => {
    for (let index = 0; index < 3; index++) {
      const response = await harness.client.ask({
        input: script(
          { calls: [{ name: "work", input: { label: `scrape-${index}`, ms: 5 } }] },
          { text: "done" },
        ),
        userContext: { userId: "u-prometheus" },
      });
      expect(response.status).toBe("completed");
    }
    const finished = await waitUntil(
      async () => {
        const result = await query('tollgate_runs_finished_total{status="completed"}');
        return result.length > 0 && Number(result[0]!.value[1]) >= 3 ? result : undefined;
      },
      { timeoutMs: 30_000, message: "tollgate_runs_finished_total scraped" },
    );
    expect(finished[0]!.metric.job).toBe("tollgate-worker");
    const buckets = await waitUntil(
      async () => {
        const result = await query('tollgate_tool_execution_seconds_bucket{tool="work"}');
        return result.length > 0 ? result : undefined;
      },
      { timeoutMs: 30_000, message: "tool latency histogram scraped" },
    );
    expect(buckets.some((series) => series.metric.le === "+Inf" && Number(series.value[1]) >= 3)).toBe(true);
    const up = await waitUntil(
      async () => {
        const result = await query("up == 1");
        return result.length === 2 ? result : undefined;
      },
      { timeoutMs: 30_000, message: "both targets up" },
    );
    expect(up.map((series) => series.metric.job).sort()).toEqual(["tollgate-api", "tollgate-worker"]);
    const pending = await query("tollgate_approvals_pending");
    expect(pending.map((series) => series.metric.job)).toContain("tollgate-api");
  }, 60_000);

  it.each([
    ["the API", () => `${api.url}/metrics`],
    ["a worker", () => `http://127.0.0.1:${workerMetrics.port}/metrics`],
  ])("promtool check metrics accepts what %s serves", async (_name, url) => {
    const text = await (await fetch(url())).text();
    const directory = mkdtempSync(join(tmpdir(), "tollgate-promtool-"));
    const file = join(directory, "metrics.txt");
    writeFileSync(file, text);
    const result = await execFileAsync("sh", ["-c", `promtool check metrics < "${file}"; echo "exit=$?"`]);
    const output = result.stdout + result.stderr;
    // prom-client's own process gauges end in _total, which promtool flags; nothing else may be.
    const problems = output
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("exit="))
      .filter((line) => !/tollgate_nodejs_active_(handles|requests|resources)_total/.test(line));
    expect(problems).toEqual([]);
  });
});
