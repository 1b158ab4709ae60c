import { randomBytes } from "node:crypto";
import type { TRuntimeOptionsInput } from "../../src/config/runtime-options.js";

/**
 * A notification target that sends alice signed approval links with every approval request, to a test
 * webhook receiver; and the runtime secret the links are signed with.
 */
export function aliceLinkTarget(receiverUrl: string, consoleUrl: string) {
  return {
    name: "alice-dm",
    url: receiverUrl,
    secret: `whsec_${randomBytes(32).toString("base64")}`,
    events: ["approval-requested" as const],
    links: { approver: { subject: "alice" }, consoleUrl },
  };
}

export const linkRuntime = (): TRuntimeOptionsInput => ({ linkSecret: randomBytes(32).toString("base64") });
