import type { LookupAddress, LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';

import { isPublicAddress } from './address-policy.js';

export const BLOCKED_DESTINATION_CODE = 'ERR_BLOCKED_DESTINATION';

/** The guard's refusal; the client reports it as `blocked_destination`. */
class BlockedDestinationError extends Error {
  readonly code = BLOCKED_DESTINATION_CODE;

  constructor(hostname: string) {
    super(`${hostname} resolves to an address that is not public`);
    this.name = new.target.name;
  }
}

/** The `dns.lookup` shape the guard resolves with; tests substitute a scripted resolver. */
export type ResolveAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for undici's connector: the socket connects only to the addresses checked here, so a
 * rebinding DNS server gets no second answer. One non-public address refuses the whole name, so a
 * connection cannot fall through from a public address to a private one.
 */
export function createGuardedLookup(resolveAll: ResolveAll): LookupFunction {
  return (hostname, options, callback) => {
    resolveAll(hostname, { all: true, family: options.family, hints: options.hints }, (error, addresses) => {
      if (error) return callback(error, []);
      if (addresses.length === 0) {
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      }
      if (addresses.some((entry) => !isPublicAddress(entry.address))) {
        return callback(new BlockedDestinationError(hostname), []);
      }
      // Node ≥ 20 asks for every address (autoSelectFamily); older callers want a single one.
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
