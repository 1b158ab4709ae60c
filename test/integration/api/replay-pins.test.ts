import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { IApiToken } from "../../../src/api/index.js";
import { defineTool } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { createApiFixture, type IApiFixture } from "./api-fixture.js";

// A replay (rerun, fork, resume) runs under the replaying token's pinned approval profiles: a token
// pinned to `strict` may not replay another service's run of its tenant under that run's laxer profile.

let charges = 0;

const pinsGateway = defineGateway({
  tools: [
    defineTool({
      name: "charge_card",
      description: "Charges the customer's card.",
      inputSchema: z.object({ amount: z.number() }),
      tags: ["billing"],
      execute: async ({ input }) => {
        charges += 1;
        return { charged: input.amount };
      },
    }),
  ],
  policy: { profiles: { strict: { approvals: ["billing"] }, lenient: { approvals: [] } } },
});

const tokens = [
  { token: "acme-service-token-0123456789", subject: "acme-billing-svc", roles: ["admin"], tenant: "acme" },
  {
    token: "acme-strict-token-0123456789",
    subject: "acme-strict-svc",
    roles: ["runs:write", "runs:read"],
    tenant: "acme",
    profiles: ["strict"],
  },
] satisfies IApiToken[];
const service = { authorization: `Bearer ${tokens[0]?.token}` };
const strict = { authorization: `Bearer ${tokens[1]?.token}` };

const chargeThenAnswer = script(
  { calls: [{ name: "charge_card", input: { amount: 40 } }] },
  { text: "Paid." },
);

describe("a replay keeps the replaying token's pinned approval profile", () => {
  let fixture: IApiFixture;
  let original: { runId: string; callId: string };
  let failed: string;

  const post = (url: string, headers: Record<string, string>, payload: object = {}) =>
    fixture.app.inject({ method: "POST", url, headers, payload });
  const getRun = async (runId: string) =>
    (await fixture.app.inject({ method: "GET", url: `/v1/runs/${runId}`, headers: service })).json();
  /** The run's first parked call, or its ending: whichever comes first. */
  const parkedOrFinished = (runId: string) =>
    waitUntil(async () => {
      const view = await getRun(runId);
      if (view.pendingApprovals.length > 0) return { parked: view.pendingApprovals[0].toolName as string };
      return view.response ? { finished: view.status as string } : undefined;
    });

  beforeAll(async () => {
    fixture = await createApiFixture("replay-pins", { tokens }, pinsGateway);
    const created = await post("/v1/runs", service, {
      input: chargeThenAnswer,
      userContext: { userId: "cust-1", profile: "lenient" },
    });
    expect(created.statusCode).toBe(202);
    const { runId } = created.json();
    const view = await waitUntil(async () => {
      const run = await getRun(runId);
      return run.response ? run : undefined;
    });
    expect(view.status).toBe("completed");
    original = { runId, callId: view.response.toolResults[0].callId };
    expect(charges).toBe(1);
  }, 60_000);
  afterAll(() => fixture.close());

  it("a rerun by a token pinned to strict parks the billing call", async () => {
    const rerun = await post(`/v1/runs/${original.runId}/rerun`, strict, { repeatEffects: true });
    expect(rerun.statusCode).toBe(202);
    expect(await parkedOrFinished(rerun.json().runId)).toEqual({ parked: "charge_card" });
  });

  it("a rerun with another input by that token parks it too", async () => {
    const rerun = await post(`/v1/runs/${original.runId}/rerun`, strict, {
      input: script({ calls: [{ name: "charge_card", input: { amount: 41 } }] }, { text: "Paid." }),
      repeatEffects: true,
    });
    expect(rerun.statusCode).toBe(202);
    expect(await parkedOrFinished(rerun.json().runId)).toEqual({ parked: "charge_card" });
  });

  it("a fork from the billing call by that token parks it", async () => {
    const fork = await post(`/v1/runs/${original.runId}/fork`, strict, {
      fromCallId: original.callId,
      repeatEffects: true,
    });
    expect(fork.statusCode).toBe(202);
    expect(await parkedOrFinished(fork.json().runId)).toEqual({ parked: "charge_card" });
  });

  it("a resume by that token of a run that failed before its billing call parks the call", async () => {
    const created = await post("/v1/runs", service, {
      input: script(
        { status: 500, times: 3 },
        { calls: [{ name: "charge_card", input: { amount: 7 } }] },
        { text: "Paid." },
      ),
      userContext: { userId: "cust-1", profile: "lenient" },
    });
    failed = created.json().runId;
    expect(await parkedOrFinished(failed)).toEqual({ finished: "failed" });
    const resumed = await post(`/v1/runs/${failed}/resume`, strict);
    expect(resumed.statusCode).toBe(202);
    expect(await parkedOrFinished(resumed.json().runId)).toEqual({ parked: "charge_card" });
  });

  it("the replays ran under the token's profile; the card was charged once, by the original", async () => {
    const { runs } = (
      await fixture.app.inject({ method: "GET", url: "/v1/runs?limit=10", headers: service })
    ).json();
    const replays = runs.filter(
      (run: { runId: string }) => run.runId !== original.runId && run.runId !== failed,
    );
    expect(replays).toHaveLength(4);
    for (const replay of replays) {
      const stored = await fixture.harness.client.getRun(replay.runId);
      expect(stored.userId).toBe("cust-1");
      expect(stored.createdBy).toBe("acme-strict-svc");
    }
    expect(charges).toBe(1);
  });
});
