import { existsSync } from "node:fs";
import pino from "pino";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { z } from "zod";
import { type IApiToken, type IRunningApi, StaticTokens, startApi } from "../../src/api/index.js";
import type { TRuntimeOptionsInput } from "../../src/config/runtime-options.js";
import { defineTool, EToolCallVerdict } from "../../src/contracts/index.js";
import { defineGateway, type IGateway } from "../../src/gateway/index.js";
import { createHarness, type IHarness } from "../helpers/harness.js";

/** Debian's chromium: `.ci/run` installs it when missing. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** A support desk's tools as a reviewer meets them: refunds over 100, every email, order lookups. */
export const consoleTools = [
  defineTool({
    name: "refund",
    description: "Refunds a charge to the customer's card.",
    inputSchema: z.object({
      chargeId: z.string().min(1).describe("The charge to refund."),
      amount: z.number().positive().max(5000).describe("In euros."),
    }),
    tags: ["billing"],
    policy: ({ input }) =>
      input.amount > 100
        ? { verdict: EToolCallVerdict.NEEDS_APPROVAL, reason: `Refund of ${input.amount} EUR is over 100` }
        : { verdict: EToolCallVerdict.ALLOW },
    execute: async ({ input }) => ({ refunded: input.amount, chargeId: input.chargeId }),
  }),
  defineTool({
    name: "send_email",
    description: "Sends an email to the customer.",
    inputSchema: z.object({
      to: z.email(),
      // A refinement JSON Schema cannot say: the page lets it through, the server's 422 names it.
      subject: z
        .string()
        .min(1)
        .refine((subject) => subject === subject.toLowerCase() || subject !== subject.toUpperCase(), {
          message: "must not be all capitals",
        }),
      body: z.string(),
    }),
    tags: ["email"],
    policy: () => ({ verdict: EToolCallVerdict.NEEDS_APPROVAL, reason: "Every email is read first" }),
    execute: async ({ input }) => ({ sentTo: input.to }),
  }),
  defineTool({
    name: "lookup_order",
    description: "Reads an order.",
    inputSchema: z.object({ orderId: z.string() }),
    readOnly: true,
    execute: async ({ input }) => ({ orderId: input.orderId, status: "delivered", total: 150 }),
  }),
];

export const consoleGateway = defineGateway({ tools: consoleTools });

/**
 * Who uses the console in these tests: two reviewers, an auditor who may only read, an operator who
 * follows runs, a lead who may also run them again, and the service.
 */
export const consoleTokens = {
  alice: {
    token: "alice-reviewer-token-0123456789",
    subject: "alice",
    roles: ["approvals:read", "approvals:decide"],
  },
  bob: {
    token: "bob-reviewer-token-0123456789ab",
    subject: "bob",
    roles: ["approvals:read", "approvals:decide"],
  },
  auditor: { token: "auditor-token-0123456789abcdef", subject: "auditor", roles: ["approvals:read"] },
  /** An operator who follows runs (the Runs view) and reads and decides approvals. */
  operator: {
    token: "operator-olga-token-0123456789",
    subject: "olga",
    roles: ["runs:read", "approvals:read", "approvals:decide"],
  },
  /** A lead who follows runs and may run them again (resume, rerun, fork). */
  lead: {
    token: "lead-lena-token-0123456789abcd",
    subject: "lena",
    roles: ["runs:read", "runs:write", "approvals:read"],
  },
  service: {
    token: "service-token-0123456789abcdef",
    subject: "support-bot",
    roles: ["runs:write", "runs:read"],
  },
} satisfies Record<string, IApiToken>;

export interface IConsoleStack {
  harness: IHarness;
  api: IRunningApi;
  browser: Browser;
  /** The console's address: `<api>/console/`. */
  consoleUrl: string;
  /** The API's tokens (consoleTokens), replaceable while it serves: a test revokes one as a reloaded tokens file would. */
  tokenSet: StaticTokens;
  /** A fresh browser session (its own session storage), requests to other hosts recorded. */
  newSession(): Promise<ISession>;
  close(): Promise<void>;
}

export interface ISession {
  context: BrowserContext;
  page: Page;
  /** Every URL the page asked for, to prove it talks to no other host. */
  requests: string[];
  /** Content-Security-Policy violations and page errors reported by the browser. */
  problems: string[];
  signIn(token: string): Promise<void>;
}

/** A real Redis prefix, the scripted model, one worker, the API on a real port, and headless chromium. */
export async function startConsoleStack(
  label: string,
  gateway: IGateway = consoleGateway,
  options: {
    /** The API's port (a link's console URL must be known before the gateway). @defaultValue any free one */
    port?: number;
    runtime?: TRuntimeOptionsInput;
  } = {},
): Promise<IConsoleStack> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `The console tests need Debian's chromium at ${chromiumPath} (apt-get install chromium; .ci/run installs it), or set CHROMIUM_PATH.`,
    );
  }
  const harness = await createHarness(gateway, label, options.runtime);
  await harness.startWorker();
  const tokenSet = new StaticTokens(Object.values(consoleTokens));
  const api = await startApi({
    client: harness.client,
    tokenSet,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
    port: options.port ?? 0,
    host: "127.0.0.1",
  });
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true });
  const consoleUrl = `${api.url}/console/`;
  const sessions: BrowserContext[] = [];
  return {
    harness,
    api,
    browser,
    consoleUrl,
    tokenSet,
    async newSession() {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      sessions.push(context);
      const page = await context.newPage();
      // Under the test's own timeout, so a step that never happens names its locator.
      page.setDefaultTimeout(10_000);
      const requests: string[] = [];
      const problems: string[] = [];
      page.on("request", (request) => requests.push(request.url()));
      page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
      page.on("console", (message) => {
        if (message.type() === "error" && /Content Security Policy|Refused to/i.test(message.text())) {
          problems.push(`csp: ${message.text()}`);
        }
      });
      return {
        context,
        page,
        requests,
        problems,
        async signIn(token: string) {
          await page.goto(consoleUrl);
          await page.getByLabel("API token").fill(token);
          await page.getByRole("button", { name: "Sign in" }).click();
          await page.getByRole("heading", { name: "Pending approvals" }).waitFor();
        },
      };
    },
    async close() {
      await Promise.allSettled(sessions.map((context) => context.close()));
      await browser.close();
      await api.close();
      await harness.close();
    },
  };
}
