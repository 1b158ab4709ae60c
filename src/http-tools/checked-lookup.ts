import { type LookupAddress, lookup as systemLookup } from "node:dns";
import type { LookupFunction } from "node:net";
import { isRestrictedAddress } from "./address-check.js";

/** Resolves a host name to every address it has: node's `dns.lookup` with `all: true` by default. */
export type TResolveHost = (hostname: string) => Promise<LookupAddress[]>;

export const resolveWithSystem: TResolveHost = (hostname) =>
  new Promise((resolve, reject) => {
    systemLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

/** A host name that resolved to an address the tool may not reach. */
export class RestrictedAddressError extends Error {
  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(
      `${hostname} resolves to ${address}, a private, loopback or link-local address the tool may not reach`,
    );
    this.name = "RestrictedAddressError";
  }
}

/**
 * The `lookup` of the tool's sockets: the socket connects to exactly the addresses checked here, so a name
 * that resolves to a public address for a check and to 127.0.0.1 for the connection (DNS rebinding) has no
 * second resolution to slip through. A name with any restricted address is refused as a whole.
 */
export function checkedLookup(resolveHost: TResolveHost, allowPrivateAddresses: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(hostname).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = addresses.filter((entry) => family === undefined || entry.family === family);
        const restricted = allowPrivateAddresses
          ? undefined
          : addresses.find((entry) => isRestrictedAddress(entry.address));
        if (restricted !== undefined) {
          callback(new RestrictedAddressError(hostname, restricted.address), "", 0);
        } else if (usable.length === 0) {
          const error = Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" });
          callback(error, "", 0);
        } else if (options.all) {
          // With autoSelectFamily (node 20's default) the socket asks for every address and tries each.
          (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, usable);
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0),
    );
  };
}
