import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../../src/observability/index.js";
import { captureLines } from "./capture-lines.js";

const API_TOKEN = "tg_live_6f1c0d8e9b2a47c3a5e1f0d9c8b7a6e5";
const MODEL_API_KEY = "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("createLogger", () => {
  it("writes one JSON object per line at info level by default", () => {
    const capture = captureLines();
    const logger = createLogger({ destination: capture.stream, name: "tollgate-test" });
    logger.debug("hidden at info");
    logger.info({ queue: "runs" }, "worker started");
    const records = capture.records();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      msg: "worker started",
      queue: "runs",
      name: "tollgate-test",
      level: 30,
    });
    expect(typeof records[0]?.time).toBe("string");
  });

  it("honours a configured level", () => {
    const capture = captureLines();
    const logger = createLogger({ destination: capture.stream, level: "warn" });
    logger.info("no");
    logger.warn("yes");
    expect(capture.records().map((record) => record.msg)).toEqual(["yes"]);
  });

  it("keeps an error's code, status and message under err", () => {
    const capture = captureLines();
    const logger = createLogger({ destination: capture.stream });
    const error = Object.assign(new Error("model API said no"), {
      code: "TG_MODEL_UNAVAILABLE",
      status: 503,
    });
    logger.error({ err: error }, "model call failed");
    expect(capture.records()[0]?.err).toMatchObject({
      type: "Error",
      message: "model API said no",
      code: "TG_MODEL_UNAVAILABLE",
      status: 503,
    });
  });
});

describe("secrets are never written", () => {
  const placements: Array<[string, (logger: ReturnType<typeof createLogger>) => void]> = [
    [
      "the authorization header",
      (logger) => logger.info({ req: { headers: { authorization: `Bearer ${API_TOKEN}` } } }),
    ],
    ["a headers object", (logger) => logger.info({ headers: { Authorization: `Bearer ${API_TOKEN}` } })],
    ["a top-level token", (logger) => logger.info({ token: API_TOKEN })],
    ["a nested token", (logger) => logger.info({ request: { auth: { token: API_TOKEN } } })],
    ["a token in an array", (logger) => logger.info({ tokens: [{ token: API_TOKEN }] })],
    [
      "apiKey deep in config",
      (logger) => logger.info({ config: { model: { provider: { apiKey: MODEL_API_KEY } } } }),
    ],
    ["api_key", (logger) => logger.info({ settings: { api_key: MODEL_API_KEY } })],
    ["a password", (logger) => logger.info({ user: { password: API_TOKEN } })],
    [
      "the environment",
      (logger) => logger.info({ env: { OPENAI_API_KEY: MODEL_API_KEY, TOLLGATE_API_TOKENS: API_TOKEN } }),
    ],
    ["the message text", (logger) => logger.info(`calling the model with key ${MODEL_API_KEY}`)],
    [
      "an error message",
      (logger) => logger.error({ err: new Error(`401 for token ${API_TOKEN}`) }, "auth failed"),
    ],
    ["a free-text field", (logger) => logger.info({ note: `the key is ${MODEL_API_KEY}.` })],
    ["a child binding", (logger) => logger.child({ forwarded: `Bearer ${API_TOKEN}` }).info("child")],
    [
      "tool content at debug",
      (logger) => logger.debug({ content: { input: { q: API_TOKEN } } }, "tool input"),
    ],
  ];

  it.each(placements)("redacts a secret placed in %s", (_placement, write) => {
    const capture = captureLines();
    const logger = createLogger({
      destination: capture.stream,
      level: "debug",
      secretValues: [API_TOKEN, MODEL_API_KEY],
    });
    write(logger);
    expect(capture.lines().length).toBeGreaterThan(0);
    expect(capture.text()).not.toContain(API_TOKEN);
    expect(capture.text()).not.toContain(MODEL_API_KEY);
    expect(capture.text()).toContain("[Redacted]");
  });

  it("redacts secret fields by name even when their values are not configured", () => {
    const capture = captureLines();
    const logger = createLogger({ destination: capture.stream });
    logger.info({ a: { b: { c: { apiKey: "unconfigured-key-value" } } }, token: "unconfigured-token-value" });
    expect(capture.text()).not.toContain("unconfigured");
  });

  it("scrubs the values of OPENAI_API_KEY and TOLLGATE_API_TOKENS from the environment", () => {
    vi.stubEnv("OPENAI_API_KEY", MODEL_API_KEY);
    vi.stubEnv("TOLLGATE_API_TOKENS", `ops:${API_TOKEN}:admin,reader:tg_read_0123456789abcdef:runs:read`);
    const capture = captureLines();
    const logger = createLogger({ destination: capture.stream });
    logger.info(`got ${MODEL_API_KEY} and ${API_TOKEN} and tg_read_0123456789abcdef`);
    expect(capture.text()).not.toContain(MODEL_API_KEY);
    expect(capture.text()).not.toContain(API_TOKEN);
    expect(capture.text()).not.toContain("tg_read_0123456789abcdef");
    // Short pieces (names, roles) are not secrets and stay readable.
    logger.info("role runs:read for ops");
    expect(capture.records().at(-1)?.msg).toBe("role runs:read for ops");
  });

  it("applies configured redact paths", () => {
    const capture = captureLines();
    const logger = createLogger({ destination: capture.stream, redactPaths: ["content.input.cardNumber"] });
    logger.info({ content: { input: { cardNumber: "4111 1111 1111 1111", amount: 12 } } });
    expect(capture.records()[0]?.content).toEqual({ input: { cardNumber: "[Redacted]", amount: 12 } });
  });

  it("does not modify the caller's objects", () => {
    const capture = captureLines();
    const logger = createLogger({ destination: capture.stream });
    const fields = { nested: { token: API_TOKEN } };
    logger.info(fields);
    expect(fields.nested.token).toBe(API_TOKEN);
  });

  it("keeps token counts, which are not secrets", () => {
    const capture = captureLines();
    const logger = createLogger({ destination: capture.stream });
    logger.info({ usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 } });
    expect(capture.records()[0]?.usage).toEqual({ promptTokens: 10, completionTokens: 2, totalTokens: 12 });
  });

  it("ignores configured secret values too short to scrub safely", () => {
    const capture = captureLines();
    const logger = createLogger({ destination: capture.stream, secretValues: ["abc"] });
    logger.info("abc is not scrubbed");
    expect(capture.records()[0]?.msg).toBe("abc is not scrubbed");
  });
});
