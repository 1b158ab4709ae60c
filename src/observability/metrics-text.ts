import type { Registry } from "prom-client";

export interface IMetricsText {
  /** The Prometheus text exposition content type of the registry (version 0.0.4). */
  contentType: string;
  body: string;
}

/** The registry's metrics as a scrape response. Scrape-time collectors run here. */
export async function metricsText(registry: Registry): Promise<IMetricsText> {
  const body = await registry.metrics();
  // The exposition format requires a final line feed; some parsers reject a body without it.
  return { contentType: registry.contentType, body: body.endsWith("\n") ? body : `${body}\n` };
}
