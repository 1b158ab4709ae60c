import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LLMClient, ModelRouter } from "../../../src/model/index.js";
import { type IScriptedModel, startScriptedModel } from "../../../src/model/scripted/index.js";
import { script } from "../../helpers/script.js";

async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The router over real transports (the openai SDK against the scripted model, and a port nobody listens
 * on), on a clock the test steps: a cooldown holds until its end, then the model is tried again.
 */
describe("the model router's cooldown, on a stepped clock", () => {
  let model: IScriptedModel;
  let deadURL: string;
  beforeAll(async () => {
    model = await startScriptedModel();
    deadURL = `http://127.0.0.1:${await deadPort()}/v1`;
  });
  afterAll(() => model.close());

  const messages = (text: string) => [{ role: "user" as const, content: script({ text }) }];

  it("a failed model stays out of rotation for cooldownMs, then is tried first again", async () => {
    let now = 0;
    const router = new ModelRouter(
      [
        {
          name: "primary",
          transport: new LLMClient({ model: "primary-model", baseURL: deadURL, maxRetries: 0 }),
          maxRetries: 3,
          cooldownMs: 10_000,
          fallbacks: ["spare"],
        },
        {
          name: "spare",
          transport: new LLMClient({ model: "spare-model", baseURL: model.url, maxRetries: 0 }),
          maxRetries: 0,
          cooldownMs: 10_000,
          fallbacks: [],
        },
      ],
      { now: () => now },
    );
    const first = await router.complete("primary", { messages: messages("one"), tools: [] });
    expect(first).toMatchObject({
      type: "replied",
      model: "spare",
      fallbacks: [{ from: "primary", to: "spare", reason: "unreachable" }],
    });

    now = 9_999;
    const during = await router.complete("primary", { messages: messages("two"), tools: [] });
    expect(during).toMatchObject({
      type: "replied",
      model: "spare",
      fallbacks: [{ from: "primary", to: "spare", reason: "cooling_down" }],
    });

    now = 10_000;
    const after = await router.complete("primary", { messages: messages("three"), tools: [] });
    // Tried again (and still dead): the switch is for its failure, not its cooldown.
    expect(after).toMatchObject({
      type: "replied",
      model: "spare",
      fallbacks: [{ from: "primary", to: "spare", reason: "unreachable" }],
    });
  });

  it("a failure no other model would change (a 400) fails the call at once, without a fallback", async () => {
    const router = new ModelRouter([
      {
        name: "primary",
        transport: new LLMClient({ model: "primary-model", baseURL: model.url, maxRetries: 0 }),
        maxRetries: 3,
        cooldownMs: 10_000,
        fallbacks: ["spare"],
      },
      {
        name: "spare",
        transport: new LLMClient({ model: "spare-model", baseURL: model.url, maxRetries: 0 }),
        maxRetries: 0,
        cooldownMs: 10_000,
        fallbacks: [],
      },
    ]);
    model.clearRequests();
    const outcome = await router.complete("primary", {
      messages: [{ role: "user", content: script({ status: 400 }, { text: "never" }) }],
      tools: [],
    });
    expect(outcome).toMatchObject({ type: "failed", error: { code: "TG_MODEL_FAILED" }, fallbacks: [] });
    expect(model.requests().map((request) => request.model)).toEqual(["primary-model"]);
  });

  it("the last model left is retried with backoff, up to its maxRetries", async () => {
    const router = new ModelRouter(
      [
        {
          name: "only",
          transport: new LLMClient({ model: "only-model", baseURL: model.url, maxRetries: 0 }),
          maxRetries: 2,
          cooldownMs: 10_000,
          fallbacks: [],
        },
      ],
      // No jitter and the shortest backoff the formula gives: 0.375 s, then 0.75 s.
      { random: () => 0.999_999 },
    );
    model.clearRequests();
    const outcome = await router.complete("only", {
      messages: [{ role: "user", content: script({ status: 500 }, { status: 502 }, { text: "third time" }) }],
      tools: [],
    });
    expect(outcome).toMatchObject({ type: "replied", model: "only", fallbacks: [] });
    expect(model.requests()).toHaveLength(3);
  });
});
