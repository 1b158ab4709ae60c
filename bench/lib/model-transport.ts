import OpenAI from "openai";
import { nodeHttpFetch } from "../../src/model/node-http-fetch.js";

/**
 * The HTTP client the bench's own openai SDK clients (the openai loop, the floor, the SDK alone in the
 * streaming scenario) send their model calls with: the one Tollgate's model clients use by default (its
 * node:http client, not Node's global `fetch`), so that a ratio to them measures Tollgate's own work and
 * not a difference of transport (docs/BENCHMARKS.md, "Model calls over node:http"). One per process.
 */
export const benchModelFetch: typeof fetch = nodeHttpFetch().fetch;

/** The bench's openai SDK client of the scripted model at `baseURL`: no retries, over `benchModelFetch`. */
export function benchOpenAi(baseURL: string): OpenAI {
  return new OpenAI({ baseURL, apiKey: "bench", maxRetries: 0, fetch: benchModelFetch });
}
