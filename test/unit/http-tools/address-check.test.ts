import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { checkedLookup, isRestrictedAddress, RestrictedAddressError } from "../../../src/http-tools/index.js";

describe("isRestrictedAddress", () => {
  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "[::1]",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:169.254.169.254",
    "::ffff:10.0.0.1",
    "64:ff9b::7f00:1",
    "64:ff9b::10.0.0.1",
    "2002:7f00:1::1",
    // IPv4-translated (SIIT), whatever IPv4 address it carries.
    "::ffff:0:7f00:1",
    "::ffff:0:127.0.0.1",
    "::ffff:0:808:808",
    "0:0:0:0:ffff:0:a00:1",
    // Local-use NAT64: the operator's own translator, wherever it leads.
    "64:ff9b:1::7f00:1",
    "64:ff9b:1::808:808",
    "64:ff9b:1:ffff::1",
    // Teredo, its server and client addresses carried inside.
    "2001::1",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "[2001:0:53aa:64c:0:7f00:1:1]",
    "2001:2::1",
    "2001:10::1",
    "3fff::1",
    "5f00::1",
    "not-an-address",
  ])("refuses %s", (address) => {
    expect(isRestrictedAddress(address)).toBe(true);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "64:ff9b:2::1",
    "2001:4860:4860::8888",
    "2001:1:0::1",
  ])("lets %s through", (address) => {
    expect(isRestrictedAddress(address)).toBe(false);
  });
});

/** Calls a lookup as a socket does; `all` as node 20's autoSelectFamily asks. */
function lookUp(
  lookup: ReturnType<typeof checkedLookup>,
  all: boolean,
): Promise<{ error: Error | null; result: unknown }> {
  return new Promise((resolve) => {
    lookup("tools.example.test", { all }, (error, address, family) =>
      resolve({ error, result: all ? address : { address, family } }),
    );
  });
}

describe("checkedLookup", () => {
  const resolvesTo =
    (...addresses: string[]) =>
    async (): Promise<LookupAddress[]> =>
      addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

  it("hands the socket exactly the addresses it checked", async () => {
    const lookup = checkedLookup(resolvesTo("93.184.216.34", "2606:4700::1111"), false);
    expect((await lookUp(lookup, true)).result).toEqual([
      { address: "93.184.216.34", family: 4 },
      { address: "2606:4700::1111", family: 6 },
    ]);
    expect((await lookUp(lookup, false)).result).toEqual({ address: "93.184.216.34", family: 4 });
  });

  it("refuses a name with any restricted address, so a rebinding answer mixing both gets nothing", async () => {
    const lookup = checkedLookup(resolvesTo("93.184.216.34", "127.0.0.1"), false);
    const { error } = await lookUp(lookup, true);
    expect(error).toBeInstanceOf(RestrictedAddressError);
    expect(error!.message).toContain("127.0.0.1");
  });

  it("lets a restricted address through when the tool allows private addresses", async () => {
    const lookup = checkedLookup(resolvesTo("127.0.0.1"), true);
    expect((await lookUp(lookup, false)).result).toEqual({ address: "127.0.0.1", family: 4 });
  });
});
