/** What the model endpoints accept as a function's name. */
export const modelToolNamePattern = /^[A-Za-z0-9_-]{1,64}$/;
const maxNameChars = 64;

/** The Tollgate name of one MCP tool, and whether it had to differ from `<server>__<tool>`. */
export interface IMcpToolName {
  name: string;
  mcpName: string;
  renamed: boolean;
}

/**
 * The names a server's tools get: `<server>__<tool>`, unless that breaks the model's rules (letters,
 * digits, `_`, `-`, at most 64): then every other character becomes `_` and a long name is cut and ends in
 * a short hash of the MCP name, so two tools never share a name. Deterministic: every worker names a tool
 * the same way. The caller logs the renamed ones.
 */
export function mcpToolNamesOf(server: string, mcpNames: readonly string[]): IMcpToolName[] {
  const taken = new Set<string>();
  return mcpNames.map((mcpName) => {
    const plain = `${server}__${mcpName}`;
    let name = plain.replace(/[^A-Za-z0-9_-]/g, "_");
    if (name.length > maxNameChars || taken.has(name)) {
      const suffix = `_${shortHash(mcpName)}`;
      name = `${name.slice(0, maxNameChars - suffix.length)}${suffix}`;
    }
    taken.add(name);
    return { name, mcpName, renamed: name !== plain };
  });
}

/** FNV-1a, 32 bits, as 8 hex digits: enough to tell a server's tools apart, and pure. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (const character of text) {
    hash ^= character.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
