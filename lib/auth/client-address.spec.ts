import { clientAddressKey } from './client-address.js';

describe('clientAddressKey', () => {
  it('keeps an IPv4 address, also written IPv4-mapped or NAT64-embedded', () => {
    expect(clientAddressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('::ffff:cb00:7107')).toBe('203.0.113.7');
    expect(clientAddressKey('64:ff9b::cb00:7107')).toBe('203.0.113.7');
    expect(clientAddressKey('64:ff9b::c633:6407')).toBe('198.51.100.7');
  });

  it('counts an IPv6 address by its /64, with or without a zone', () => {
    const key = '2001:db8:1:2::/64';
    expect(clientAddressKey('2001:db8:1:2::1')).toBe(key);
    expect(clientAddressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(key);
    expect(clientAddressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientAddressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('counts nothing it cannot read as an address', () => {
    expect(clientAddressKey(undefined)).toBeNull();
    expect(clientAddressKey('')).toBeNull();
    expect(clientAddressKey('not-an-address')).toBeNull();
  });
});
