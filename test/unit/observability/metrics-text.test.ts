import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createMetrics, metricsText } from "../../../src/observability/index.js";

const SAMPLE_LINE =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (\S+)$/;
const COMMENT_LINE = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/;

/** A small reader of the text exposition format: families with their type and sample count. */
function parseExposition(body: string) {
  const types = new Map<string, string>();
  const samples: Array<{ name: string; value: number }> = [];
  for (const line of body.split("\n")) {
    if (line === "") continue;
    const comment = COMMENT_LINE.exec(line);
    if (comment) {
      if (comment[1] === "TYPE") types.set(comment[2] ?? "", comment[3] ?? "");
      continue;
    }
    const sample = SAMPLE_LINE.exec(line);
    if (!sample) throw new Error(`not a valid exposition line: ${line}`);
    const text = sample[3] ?? "";
    // Prometheus reads values with Go's ParseFloat: NaN and Inf in any case (prom-client writes "Nan").
    const value = /^[+-]?(inf|nan)$/i.test(text) ? Number.NaN : Number(text);
    if (Number.isNaN(value) && !/^[+-]?(inf|nan)$/i.test(text)) throw new Error(`not a valid value: ${line}`);
    samples.push({ name: sample[1] ?? "", value });
  }
  return { types, samples };
}

function familyOf(sampleName: string, types: Map<string, string>): string | undefined {
  if (types.has(sampleName)) return sampleName;
  const base = sampleName.replace(/_(bucket|sum|count)$/, "");
  return types.get(base) === "histogram" ? base : undefined;
}

describe("metricsText", () => {
  it("returns the Prometheus text content type and a body that ends with a newline", async () => {
    const registry = new Registry();
    createMetrics(registry);
    const { contentType, body } = await metricsText(registry);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4; charset=utf-8$/);
    expect(body.endsWith("\n")).toBe(true);
  });

  it("parses: every sample belongs to a declared family", async () => {
    const registry = new Registry();
    const metrics = createMetrics(registry, { pendingApprovals: async () => 1 });
    metrics.runFinished("completed", 3, 2);
    metrics.toolCall({ tool: 'quote"and\\slash', outcome: "ok" });
    const { types, samples } = parseExposition((await metricsText(registry)).body);
    expect(samples.length).toBeGreaterThan(10);
    for (const { name } of samples) {
      expect(familyOf(name, types), `sample ${name} has no # TYPE`).toBeDefined();
    }
    expect(types.get("tollgate_run_duration_seconds")).toBe("histogram");
    expect(types.get("tollgate_process_cpu_seconds_total")).toBe("counter");
  });

  it("adds the final newline when a registry's text lacks one", async () => {
    const registry = new Registry();
    // An empty registry renders as an empty string.
    expect((await metricsText(registry)).body).toBe("\n");
  });
});
