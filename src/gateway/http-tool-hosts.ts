import { z } from "zod";
import type { TAnyToolDef } from "../contracts/index.js";
import { describeFieldIssues, type IFieldIssue, TollgateError } from "../errors/index.js";

/**
 * A host an HTTP tool may call: a host name (`billing.internal`), every subdomain of one
 * (`*.tools.example.com`, not the name itself) or an IP address (`10.0.0.7`, `[fd00::7]`). No port, no scheme.
 */
const allowedHost = z
  .string()
  .min(1)
  .refine((entry) => normalizedHost(entry.startsWith("*.") ? entry.slice(2) : entry) !== undefined, {
    message: "must be a host name, *.<domain> or an IP address (no scheme, port or path)",
  });

export const httpToolsSettingsSchema = z.strictObject({
  /**
   * The hosts HTTP tools may call (design of issue 24: only hosts on the gateway's allow-list). A tool
   * whose URL names another host is refused when the gateway is defined, and a redirect never leaves
   * the tool's own host. Empty: no HTTP tool may be defined.
   */
  allowedHosts: z.array(allowedHost).default([]),
});

export type THttpToolsSettings = z.output<typeof httpToolsSettingsSchema>;

/** A host as URLs spell it (lower case, IDNA, IPv6 in brackets, no trailing dot), or undefined. */
function normalizedHost(host: string): string | undefined {
  if (/[/?#@\s]/.test(host) || (host.startsWith("[") && !host.endsWith("]"))) return undefined;
  const ipv6 = host.startsWith("[") || (host.match(/:/g)?.length ?? 0) > 1;
  // One colon outside brackets is a port.
  if (!ipv6 && host.includes(":")) return undefined;
  try {
    return new URL(`http://${ipv6 && !host.startsWith("[") ? `[${host}]` : host}/`).hostname.replace(
      /\.$/,
      "",
    );
  } catch {
    return undefined;
  }
}

/** Whether `hostname` (a URL's, normalized) is on the list. */
export function isAllowedHost(hostname: string, allowedHosts: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return allowedHosts.some((entry) => {
    if (entry.startsWith("*.")) {
      const domain = normalizedHost(entry.slice(2));
      return domain !== undefined && host.endsWith(`.${domain}`);
    }
    return normalizedHost(entry) === host;
  });
}

/** Every HTTP tool (`http` set by `httpTool`) must call a host on the gateway's list: TG_INVALID_CONFIG. */
export function checkHttpToolHosts(tools: readonly TAnyToolDef[], settings: THttpToolsSettings): void {
  const issues: IFieldIssue[] = [];
  for (const tool of tools) {
    if (tool?.http === undefined) continue;
    const hostname = new URL(tool.http.url).hostname;
    if (!isAllowedHost(hostname, settings.allowedHosts)) {
      issues.push({
        path: `tools.${tool.name}.url`,
        message: `${hostname} is not on httpTools.allowedHosts`,
      });
    }
  }
  if (issues.length > 0) {
    throw new TollgateError(
      "TG_INVALID_CONFIG",
      `The gateway's HTTP tools call hosts it does not allow: ${describeFieldIssues(issues)}.`,
      { issues },
    );
  }
}
