import { BlockList, isIP } from "node:net";

/**
 * Ranges an HTTP tool may not reach unless its definition allows private addresses: what is not the public
 * internet (loopback, private networks, link-local with the cloud metadata address 169.254.169.254,
 * carrier-grade NAT, multicast, reserved, documentation). IPv4-mapped IPv6 (`::ffff:127.0.0.1`) matches
 * the IPv4 ranges (node's BlockList maps it).
 */
const ipv4Ranges: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

/**
 * IPv6 ranges that are not the public internet (IANA's special-purpose registry). Whole ranges that carry
 * an IPv4 address whose reach cannot be told from here are refused whole: IPv4-translated (SIIT), the
 * local-use NAT64 prefix (its translator is the operator's own, and may reach private networks) and
 * Teredo (the relay decides where it goes).
 */
const ipv6Ranges: ReadonlyArray<readonly [string, number]> = [
  // Unspecified, loopback and the deprecated IPv4-compatible addresses.
  ["::", 96],
  // IPv4-translated (RFC 2765): ::ffff:0:a.b.c.d.
  ["::ffff:0:0:0", 96],
  // Local-use NAT64 (RFC 8215).
  ["64:ff9b:1::", 48],
  ["100::", 64],
  // Teredo.
  ["2001::", 32],
  // Benchmarking, ORCHID.
  ["2001:2::", 48],
  ["2001:10::", 28],
  // Documentation (RFC 3849, RFC 9637).
  ["2001:db8::", 32],
  ["3fff::", 20],
  // Segment routing SIDs (RFC 9602).
  ["5f00::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
];

const blocked = new BlockList();
for (const [network, prefix] of ipv4Ranges) blocked.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of ipv6Ranges) blocked.addSubnet(network, prefix, "ipv6");

/**
 * True when `address` (an IP literal) is one an HTTP tool may not reach by default. An IPv6 address that
 * carries an IPv4 one (NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is judged by the IPv4 address it reaches.
 * Anything that is not an IP literal is refused: the check runs on resolved addresses only.
 */
export function isRestrictedAddress(address: string): boolean {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const version = isIP(bare);
  if (version === 4) return blocked.check(bare, "ipv4");
  if (version !== 6) return true;
  if (blocked.check(bare, "ipv6")) return true;
  const embedded = embeddedIpv4(bare);
  return embedded !== undefined && blocked.check(embedded, "ipv4");
}

/** The IPv4 address a NAT64 or 6to4 address stands for, else undefined. */
function embeddedIpv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (groups === undefined) return undefined;
  const nat64 =
    groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0);
  if (nat64) return ipv4Of(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return ipv4Of(groups[1]!, groups[2]!);
  return undefined;
}

function ipv4Of(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}

/** The eight 16-bit groups of an IPv6 literal (with `::` and a dotted IPv4 tail expanded). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.split("%")[0]!.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const bytes = dotted[1]!.split(".").map(Number);
    const tail = `${((bytes[0]! << 8) | bytes[1]!).toString(16)}:${((bytes[2]! << 8) | bytes[3]!).toString(16)}`;
    text = text.slice(0, -dotted[1]!.length) + tail;
  }
  const [head = "", rest] = text.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const restGroups = rest === undefined || rest === "" ? [] : rest.split(":");
  const missing = 8 - headGroups.length - restGroups.length;
  if (rest === undefined ? missing !== 0 : missing < 0) return undefined;
  const groups = [...headGroups, ...Array<string>(rest === undefined ? 0 : missing).fill("0"), ...restGroups];
  return groups.map((group) => Number.parseInt(group, 16));
}
