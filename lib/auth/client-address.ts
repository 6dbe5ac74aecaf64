import ipaddr from 'ipaddr.js';

/**
 * The key a client's failed authentications are counted under: an IPv4 address as it is (IPv4-mapped
 * and NAT64 forms included), an IPv6 address by its /64, which one host commonly holds whole and could
 * otherwise change with every request. Null for what is not an address: that request is not counted.
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
