import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeProblems, redoclyLint } from "../../helpers/redocly-lint.js";
import { createApiFixture, type IApiFixture } from "./api-fixture.js";

const run = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * What a caller's tools make of the served document: Redocly's recommended rules find nothing in it, and a
 * TypeScript client generated from it by openapi-typescript type-checks code that uses it (and refuses a
 * body of the wrong shape).
 */
describe("GET /v1/openapi.json for the tools callers use", () => {
  let fixture: IApiFixture;
  let document: object;

  beforeAll(async () => {
    fixture = await createApiFixture("api-openapi-lint");
    const response = await fixture.app.inject({ method: "GET", url: "/v1/openapi.json" });
    expect(response.statusCode).toBe(200);
    document = response.json();
  });
  afterAll(() => fixture.close());

  it("has no error and no warning under Redocly's recommended rules", async () => {
    const report = await redoclyLint(document);
    expect(describeProblems(report)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it("generates a TypeScript client (openapi-typescript) that type-checks", async () => {
    const directory = await mkdtemp(join(tmpdir(), "tollgate-openapi-ts-"));
    try {
      await writeFile(join(directory, "openapi.json"), JSON.stringify(document));
      await run(
        process.execPath,
        [join(repositoryRoot, "node_modules/openapi-typescript/bin/cli.js"), "openapi.json", "-o", "api.ts"],
        { cwd: directory, env: { ...process.env, NO_COLOR: "1" } },
      );
      await writeFile(join(directory, "usage.ts"), usage);
      await writeFile(join(directory, "tsconfig.json"), JSON.stringify(usageTsconfig));
      const compiled = await run(
        process.execPath,
        [join(repositoryRoot, "node_modules/typescript/bin/tsc"), "-p", "."],
        { cwd: directory },
      ).then(
        () => "",
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      expect(compiled).toBe("");
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);
});

const usageTsconfig = {
  compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", types: [] },
  files: ["usage.ts"],
};

/** Code a TypeScript caller writes against the generated types; `@ts-expect-error` lines must fail. */
const usage = `import type { components, operations, paths } from "./api.js";

type CreateRunBody = paths["/v1/runs"]["post"]["requestBody"]["content"]["application/json"];
type EnqueuedRun = paths["/v1/runs"]["post"]["responses"][202]["content"]["application/json"];
type Run = paths["/v1/runs/{runId}"]["get"]["responses"][200]["content"]["application/json"];
type RunPage = operations["listRuns"]["responses"][200]["content"]["application/json"];
type Approval = operations["getApproval"]["responses"][200]["content"]["application/json"];
type RejectBody = NonNullable<operations["reject"]["requestBody"]>["content"]["application/json"];
type RunEvent = components["schemas"]["RunEvent"];
type ErrorResponse = components["schemas"]["ErrorResponse"];

export const body: CreateRunBody = {
  input: "Refund order A-1002",
  userContext: { userId: "u-ada" },
  maxSteps: 4,
  metadata: { ticket: 981 },
};
export const enqueued: EnqueuedRun = { runId: "run_1", threadId: "thread_1", status: "queued", created: true };
export const reject: RejectBody = { option: "wrong_customer", reason: "Ada moved" };

export function finishedText(run: Run): string | undefined {
  return run.status === "completed" ? run.response?.text : undefined;
}
export function nextCursor(page: RunPage): string | undefined {
  return page.runs.length > 0 ? page.nextCursor : undefined;
}
export function pendingTools(approvals: Approval[]): string[] {
  return approvals.filter((approval) => approval.status === "pending").map((approval) => approval.toolName);
}
export function eventType(event: RunEvent): string {
  return event.type;
}
export function errorCode(error: ErrorResponse): string {
  return error.error.code;
}

// @ts-expect-error maxSteps is a number
export const wrongType: CreateRunBody = { input: "hi", maxSteps: "4" };
// @ts-expect-error input is required
export const missingInput: CreateRunBody = { maxSteps: 4 };
`;
