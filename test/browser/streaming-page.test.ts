import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IRunningApi, startApi } from "../../src/api/index.js";
import { createHarness, type IHarness } from "../helpers/harness.js";
import { script } from "../helpers/script.js";
import { apiTestGateway, apiTestTokens, silentLogger } from "../integration/api/api-fixture.js";
import { chromiumPath } from "./console-stack.js";

// @ts-expect-error: a plain JavaScript example, no types.
const { startStreamingPage } = await import("../../examples/streaming-page/serve.mjs");

const answer = Array.from({ length: 40 }, (_, index) => `word${index}`).join(" ");

/** The example page in headless Chromium: it reads a run's UI message stream and shows the answer. */
describe("examples/streaming-page", () => {
  let harness: IHarness;
  let api: IRunningApi;
  let page: { url: string; close(): Promise<void> };
  let browser: Browser;
  beforeAll(async () => {
    if (!existsSync(chromiumPath))
      throw new Error(`Chromium is needed at ${chromiumPath} (or CHROMIUM_PATH).`);
    harness = await createHarness(apiTestGateway, "stream-page");
    await harness.startWorker();
    api = await startApi({
      client: harness.client,
      tokens: [apiTestTokens.admin],
      logger: silentLogger(),
      port: 0,
      host: "127.0.0.1",
    });
    page = await startStreamingPage({ apiUrl: api.url, token: apiTestTokens.admin.token });
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true });
  });
  afterAll(async () => {
    await browser?.close();
    await page?.close();
    await api?.close();
    await harness?.close();
  });

  it("shows the tool call and the answer as they stream, then says it finished", async () => {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "add", input: { a: 1, b: 2 } }] }, { text: answer, chunkDelayMs: 5 }),
      userContext: { userId: "u-page" },
    });
    const tab = await browser.newPage();
    await tab.goto(`${page.url}/?runId=${runId}`);
    await tab.getByRole("status").filter({ hasText: "finished" }).waitFor({ timeout: 20_000 });
    expect(await tab.locator("#answer").textContent()).toBe(answer);
    expect(await tab.locator("#tools li").textContent()).toBe("add… done");
    await tab.close();
  });
});
