import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { apiRoutes } from "../../../src/api/route-table.js";

/**
 * docs/API.md's Routes table against the server's routes: every row is a route the server has, and every
 * route has a row. The server's are the route table (src/api/route-table.ts) and the console's files,
 * which are served beside it (src/api/console/console-routes.ts).
 */
const consoleRoutes = ["GET /console/"];

const page = readFileSync(new URL("../../../docs/API.md", import.meta.url), "utf8");

/** The rows of the first table after `## Routes`, as their cells; the header and its separator left out. */
function routeTableRows(): string[][] {
  const section = page.slice(page.indexOf("\n## Routes\n"));
  const lines = section.split("\n");
  const start = lines.findIndex((line) => line.startsWith("|"));
  const end = lines.findIndex((line, index) => index > start && !line.startsWith("|"));
  return lines.slice(start + 2, end).map((line) =>
    line
      .replace(/^\|/, "")
      .replace(/\|$/, "")
      .split("|")
      .map((cell) => cell.trim()),
  );
}

/**
 * The routes a row's first cell names: `` `GET /v1/runs?status=&...` `` (the query and `[optional]` parts
 * dropped), or `` `POST /v1/schedules/:scheduleId/pause`, `/resume` `` (a sibling of the last segment).
 * A cell that names no route comes back as itself, so the comparison shows it.
 */
function routesOf(cell: string): string[] {
  const [first, ...siblings] = cell.split(/,\s*/).map((part) => part.replace(/^`|`$/g, ""));
  const named = /^(GET|POST|PUT|PATCH|DELETE) (\/[^\s?[]*)/.exec(first ?? "");
  if (named === null) return [`not a route: ${cell}`];
  const [, method, path = ""] = named;
  const parent = path.slice(0, path.lastIndexOf("/"));
  return [`${method} ${path}`, ...siblings.map((sibling) => `${method} ${parent}${sibling}`)];
}

describe("docs/API.md's Routes table", () => {
  it("has a row for every route of the server and no row that is not one of them", () => {
    const documented = routeTableRows().flatMap(([cell = ""]) => routesOf(cell));
    const served = [...apiRoutes.map(({ spec }) => `${spec.method} ${spec.url}`), ...consoleRoutes];
    expect(documented.toSorted()).toEqual(served.toSorted());
  });
});
