/**
 * Behaviour-changing defaults of the model layer, in one place so that a change is one reviewed line.
 */

/** How long one HTTP attempt may wait for the endpoint's response headers. */
export const DEFAULT_MODEL_REQUEST_TIMEOUT_MS = 60_000;

/**
 * How long a streamed reply may send nothing (between its response headers and its first chunk, or
 * between two chunks) before it is given up as a timeout. The SDK's request timeout ends at the headers:
 * without this, a stream stalled mid-answer would hold its run until the run's deadline. As long as the
 * request timeout, so that a reasoning model that thinks before its first token is not cut short.
 */
export const DEFAULT_MODEL_STREAM_IDLE_TIMEOUT_MS = 60_000;

/** Retries the openai SDK makes, with its own backoff, on 408/409/429/5xx and connection errors. */
export const DEFAULT_MODEL_MAX_RETRIES = 3;

/**
 * Sent when the caller gives no API key: local OpenAI-compatible servers (vLLM, Ollama, llama.cpp,
 * the scripted model) ignore it, and the SDK refuses to start without one.
 */
export const PLACEHOLDER_API_KEY = "not-needed";

/**
 * Passed explicitly when no baseURL is configured, so that the SDK never falls back to the
 * OPENAI_BASE_URL environment variable: configuration comes from the caller only.
 */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";
