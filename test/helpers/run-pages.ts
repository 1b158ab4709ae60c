import { expect } from "vitest";
import type { TRunSummary } from "../../src/contracts/index.js";
import type { GatewayClient } from "../../src/producer/index.js";
import type { IRunQuery } from "../../src/store/index.js";

/** Every page of a query, following the cursors. */
export async function allPages(client: GatewayClient, query: IRunQuery): Promise<TRunSummary[]> {
  const runs: TRunSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listRuns({ ...query, ...(cursor !== undefined ? { cursor } : {}) });
    runs.push(...page.runs);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return runs;
}

/** Newest first, ties by id descending: the listing's one order. */
export function expectListingOrder(runs: TRunSummary[]): void {
  for (let at = 1; at < runs.length; at++) {
    const before = runs[at - 1]!;
    const after = runs[at]!;
    const ordered =
      before.createdAt > after.createdAt ||
      (before.createdAt === after.createdAt && before.runId > after.runId);
    expect(ordered, `${before.runId} before ${after.runId}`).toBe(true);
  }
}

export async function inBatches(count: number, size: number, create: (index: number) => Promise<void>) {
  for (let start = 0; start < count; start += size) {
    await Promise.all(
      Array.from({ length: Math.min(size, count - start) }, (_, offset) => create(start + offset)),
    );
  }
}
