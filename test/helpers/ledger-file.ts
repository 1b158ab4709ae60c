import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ILedgerEntry } from "../fixtures/test-gateway.js";

/** A file the tools of worker processes append their ledger to. */
export function newLedgerFile(): string {
  return join(mkdtempSync(join(tmpdir(), "tollgate-ledger-")), "ledger.jsonl");
}

export function readLedger(file: string): ILedgerEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as ILedgerEntry);
}
