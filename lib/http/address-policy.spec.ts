import { ipLiteralOf, isPublicAddress } from './address-policy.js';

describe('isPublicAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'RFC 1918 private'],
    ['172.16.0.1', 'RFC 1918 private'],
    ['192.168.1.1', 'RFC 1918 private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['0.0.0.0', 'unspecified'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata address'],
    ['::7f00:1', 'IPv4-compatible loopback (outside 2000::/3)'],
    ['::8.8.8.8', 'IPv4-compatible, in the dotted spelling libuv prints (outside 2000::/3)'],
    ['::127.0.0.1', 'IPv4-compatible loopback, dotted'],
    ['fc00::1', 'unique local'],
    ['fe80::1', 'IPv6 link-local'],
    ['2001:db8::1', 'documentation'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['ff02::1', 'IPv6 multicast'],
    ['not-an-ip', 'unparsable'],
    ['', 'empty'],
  ])('refuses %s (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '::ffff:8.8.8.8', '2606:4700::1111', '2001:4860:4860::8888'])(
    'accepts public %s',
    (ip) => {
      expect(isPublicAddress(ip)).toBe(true);
    },
  );
});

describe('ipLiteralOf', () => {
  it('returns the bare address of IPv4 and bracketed IPv6 hosts', () => {
    expect(ipLiteralOf('127.0.0.1')).toBe('127.0.0.1');
    expect(ipLiteralOf('[::ffff:7f00:1]')).toBe('::ffff:7f00:1');
    expect(ipLiteralOf('[::1]')).toBe('::1');
  });

  it('returns null for DNS names, which the connect-time lookup checks instead', () => {
    expect(ipLiteralOf('example.com')).toBeNull();
    expect(ipLiteralOf('localhost')).toBeNull();
    expect(ipLiteralOf('127.0.0.1.nip.io')).toBeNull();
  });
});
