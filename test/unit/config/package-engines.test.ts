import { readFileSync } from "node:fs";
import semver from "semver";
import { describe, expect, it } from "vitest";

/**
 * `npm install` and `npm ci` warn EBADENGINE for every package they install whose `engines` refuse the
 * running Node or npm. They check only the versions at hand, so a dependency that declares `node <21`
 * passes on Node 20 and warns on 22: this reads the lockfile instead and checks every installed package
 * against each line we support, with the npm it ships with.
 */
const supportedNode = [process.versions.node, "20.20.0", "22.20.0", "24.10.0", "25.0.0", "26.0.0"];
/** The npm of Node 20 and 22 (10.x) and of Node 24 and later (11.x). */
const supportedNpm = ["10.8.2", "10.9.4", "11.6.2"];

interface ILockedPackage {
  version?: string;
  engines?: { node?: string; npm?: string } | string[];
  optional?: boolean;
}

const lockfile = JSON.parse(readFileSync(new URL("../../../package-lock.json", import.meta.url), "utf8")) as {
  packages: Record<string, ILockedPackage>;
};
const manifest = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
  engines: { node: string };
};

/** Every refusal, as npm would print it: the package, the range and the version it refuses. */
function refusals(): string[] {
  const found: string[] = [];
  for (const [path, entry] of Object.entries(lockfile.packages)) {
    // The root is ours; npm does not check optional packages (it skips one that does not fit, silently).
    if (path === "" || entry.optional === true || entry.engines === undefined) continue;
    // An array is the ancient form, which npm ignores.
    if (Array.isArray(entry.engines)) continue;
    const name = `${path.replace(/^.*node_modules\//, "")}@${entry.version}`;
    const { node, npm } = entry.engines;
    for (const version of node === undefined ? [] : supportedNode) {
      if (!semver.satisfies(version, node as string, { includePrerelease: true }))
        found.push(`${name} node ${node} refuses ${version}`);
    }
    for (const version of npm === undefined ? [] : supportedNpm) {
      if (!semver.satisfies(version, npm as string, { includePrerelease: true }))
        found.push(`${name} npm ${npm} refuses ${version}`);
    }
  }
  return found;
}

describe("npm install prints no EBADENGINE on the Node and npm we support", () => {
  it("the Node versions checked are the ones package.json says we support", () => {
    for (const version of supportedNode) expect(semver.satisfies(version, manifest.engines.node)).toBe(true);
  });

  it("no installed package's engines refuse them", () => {
    expect(refusals()).toEqual([]);
  });
});
