import type { Registry } from "prom-client";

type TLabels = Record<string, string>;

function sameLabels(actual: Partial<Record<string, string | number>>, expected: TLabels): boolean {
  // `prefix` is a default label of every metric of a worker (the deployment): not the series' own.
  const actualKeys = Object.keys(actual).filter(
    (key) => key !== "le" && !(key === "prefix" && !("prefix" in expected)),
  );
  return (
    actualKeys.length === Object.keys(expected).length &&
    actualKeys.every((key) => String(actual[key]) === expected[key])
  );
}

/**
 * The value of one series, read the way Prometheus would (scrape-time collectors run). For a
 * histogram give the sample name (`..._count`, `..._sum`). Undefined when the series does not exist.
 */
export async function seriesValue(
  registry: Registry,
  sampleName: string,
  labels: TLabels = {},
): Promise<number | undefined> {
  const metrics = await registry.getMetricsAsJSON();
  for (const metric of metrics) {
    for (const sample of metric.values) {
      const name = (sample as { metricName?: string }).metricName ?? metric.name;
      if (name === sampleName && sameLabels(sample.labels, labels)) {
        return sample.value;
      }
    }
  }
  return undefined;
}

/** Every series of one metric (histograms: their `_count` samples), as `labels → value`. */
export async function allSeries(registry: Registry, metricName: string): Promise<Map<string, number>> {
  const metric = (await registry.getMetricsAsJSON()).find((candidate) => candidate.name === metricName);
  const series = new Map<string, number>();
  for (const sample of metric?.values ?? []) {
    const name = (sample as { metricName?: string }).metricName ?? metric?.name;
    // prom-client types `type` as an enum; at run time it is the string Prometheus uses.
    if (String(metric?.type) === "histogram" && name !== `${metricName}_count`) continue;
    series.set(JSON.stringify(sample.labels), sample.value);
  }
  return series;
}
