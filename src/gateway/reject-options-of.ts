import type { TRejectOption } from "../contracts/index.js";
import type { IGateway } from "./define-gateway.js";

/**
 * The named reject options of a tool's parked calls: the tool's own, else the gateway's; undefined when
 * neither declares any (a reject then takes a free reason only).
 */
export function rejectOptionsOf(gateway: IGateway, toolName: string): TRejectOption[] | undefined {
  const own = gateway.catalogue.get(toolName)?.rejectOptions;
  const options = own ?? gateway.settings.rejectOptions;
  return options === undefined || options.length === 0 ? undefined : options.map((option) => ({ ...option }));
}
