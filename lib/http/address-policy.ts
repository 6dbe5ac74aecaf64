import { isIP } from 'node:net';

import ipaddr from 'ipaddr.js';

// IANA hands out global unicast IPv6 only from 2000::/3. ipaddr.js still calls the rest of ::/8
// 'unicast', which would admit IPv4-compatible spellings such as ::7f00:1 (127.0.0.1) that an
// SIIT translator on the path could route back inside.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Whether a webhook may be sent to this address. An allowlist: only ordinary unicast passes, so every
 * special range (loopback, private, link-local, CGNAT, multicast, NAT64, 6to4, any ipaddr.js adds later)
 * is refused, and IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 it carries.
 */
export function isPublicAddress(ip: string): boolean {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(inHex(ip));
  } catch {
    return false;
  }
  if (address.range() !== 'unicast') return false;
  return address.kind() === 'ipv4' || address.match(GLOBAL_UNICAST_V6);
}

/**
 * IPv6 written with hexadecimal groups only. ipaddr.js reads any IPv6 that ends in a dotted quad as
 * IPv4-mapped, so ::8.8.8.8 (IPv4-compatible, outside 2000::/3, and how libuv prints such an
 * address from DNS) would pass as 8.8.8.8; the WHATWG URL serializer writes it ::808:808.
 */
function inHex(ip: string): string {
  return isIP(ip) === 6 && ip.includes('.') ? new URL(`http://[${ip}]`).hostname.slice(1, -1) : ip;
}

/**
 * The address a URL hostname names literally, or null for a DNS name: Node connects to a literal
 * without `lookup`, escaping the connect-time guard. WHATWG URLs already normalise 2130706433,
 * 0x7f000001 and 127.1 to 127.0.0.1, and keep IPv6 in brackets, which `isIP` refuses.
 */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? null : bare;
}
