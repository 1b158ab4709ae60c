import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CliError } from "../../../src/cli/cli-errors.js";
import { loadGateway } from "../../../src/cli/load-gateway.js";

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));

async function loadError(modulePath: string): Promise<CliError> {
  const error = await loadGateway(modulePath, fixtures).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

describe("loadGateway", () => {
  it("loads a TypeScript module's default export", async () => {
    const gateway = await loadGateway("gateway.ts", fixtures);
    expect(gateway.settings.name).toBe("fixture-ts");
    expect(gateway.registry.get("echo")).toBeDefined();
  });

  it("loads an ES module's default export, by absolute path too", async () => {
    const gateway = await loadGateway(`${fixtures}gateway.mjs`, "/");
    expect(gateway.settings.name).toBe("fixture-mjs");
  });

  it.each([
    ["no-default.mjs", /no-default\.mjs has no default export made by defineGateway\(\)/],
    ["not-a-gateway.mjs", /not-a-gateway\.mjs has no default export made by defineGateway\(\)/],
    ["missing.ts", /gateway module not found: .*missing\.ts/],
    ["throws.mjs", /could not load the gateway module .*throws\.mjs: the fixture fails while loading/],
    ["invalid-gateway.ts", /could not load the gateway module .*invalid-gateway\.ts: .*invalid.*maxSteps/],
  ])("%s fails with a message that names the file", async (file, message) => {
    expect((await loadError(file)).message).toMatch(message);
  });
});
