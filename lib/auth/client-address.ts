import ipaddr from 'ipaddr.js';

/**
 * The address a client's failed authentications are counted under: an IPv4 address as it is (also
 * when written IPv4-mapped, `::ffff:203.0.113.7`, or NAT64-embedded), an IPv6 address by its /64, since one host is
 * commonly given a whole /64 and could otherwise change address with every request. Null for what
 * is not an address (a request whose socket has closed, say): that request is not counted.
 */
export function clientAddressKey(ip: string | undefined): string | null {
  if (ip === undefined || !ipaddr.isValid(ip)) return null;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const { parts } = address as ipaddr.IPv6;
  // NAT64 (64:ff9b::/96): an IPv4 client seen through an IPv6-only ingress, by its own address.
  if (address.range() === 'rfc6052') {
    return [parts[6] >> 8, parts[6] & 0xff, parts[7] >> 8, parts[7] & 0xff].join('.');
  }
  const prefix = parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}
