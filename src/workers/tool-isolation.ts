import { TollgateError } from "../errors/index.js";
import type { IGateway } from "../gateway/index.js";
import { createIsolatedRunner, type IIsolatedRunner } from "../isolation/index.js";

/**
 * The isolation pools a tool worker needs: none when every tool runs inline. An isolated tool without a
 * gateway module to load in its thread or process is a configuration error, found at start-up.
 */
export async function createToolIsolation(
  gateway: IGateway,
  gatewayModule: string | undefined,
  concurrency: number,
): Promise<IIsolatedRunner | undefined> {
  const isolated = gateway.catalogue
    .list()
    .filter((tool) => gateway.catalogue.limitsOf(tool.name).isolation !== "inline");
  if (isolated.length === 0) return undefined;
  const module = gateway.settings.module ?? gatewayModule;
  if (module === undefined) {
    throw new TollgateError(
      "TG_INVALID_CONFIG",
      `Tool ${isolated[0]!.name} runs isolated, but the gateway names no module to load in its thread or process: ` +
        "pass `module: import.meta.url` to defineGateway.",
      { option: "module" },
    );
  }
  const runner = createIsolatedRunner({ gatewayModule: module, size: concurrency });
  // Warm before taking jobs: a cold thread or process (loading the gateway) would eat the first call's timeout.
  const modes = new Set(isolated.map((tool) => gateway.catalogue.limitsOf(tool.name).isolation));
  await runner.warm([...modes].filter((mode) => mode !== "inline"));
  return runner;
}
