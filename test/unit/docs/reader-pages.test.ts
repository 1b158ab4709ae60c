import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The pages a reader looks things up in answer there, or link to another page: none sends them into the
 * source (`src/...`, as a link or a path). DESIGN-NOTES is the contributors' page, about the source itself.
 * A bare `src/` (the source as a whole, as BENCHMARKS' profiles name it) points at no file.
 */
const root = fileURLToPath(new URL("../../../", import.meta.url));
const contributorPages = new Set(["docs/DESIGN-NOTES.md"]);

function markdownFiles(directory: string): string[] {
  return readdirSync(join(root, directory), { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

const readerPages = [
  "README.md",
  ...markdownFiles("docs"),
  ...markdownFiles("examples"),
  ...markdownFiles("deploy"),
]
  .map((path) => relative(root, join(root, path)))
  .filter((path) => !contributorPages.has(path));

/** `src/<something>` not preceded by a path of its own (`console/src/` would be another tree). */
const intoSource = /(?<![\w./-])src\/[\w.-][^\s)`'"]*/g;

describe("reader-facing pages point to pages, not into src/", () => {
  it("covers the README, docs/, the examples' and the deployment's pages", () => {
    expect(readerPages).toEqual(
      expect.arrayContaining(["README.md", "docs/API.md", "docs/ERRORS.md", "deploy/kubernetes/README.md"]),
    );
  });

  it.each(readerPages)("%s", (page) => {
    const lines = readFileSync(join(root, page), "utf8").split("\n");
    const found = lines.flatMap((line, index) =>
      [...line.matchAll(intoSource)].map((match) => `${page}:${index + 1}: ${match[0]}`),
    );
    expect(found).toEqual([]);
  });
});
