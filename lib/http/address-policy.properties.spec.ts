import fc from 'fast-check';
import { isPublicAddress } from './address-policy.js';

/** The IPv4 ranges no webhook may reach, as [first octets, prefix length]. */
const FORBIDDEN_V4: readonly [number[], number][] = [
  [[0], 8],
  [[10], 8],
  [[100, 64], 10],
  [[127], 8],
  [[169, 254], 16],
  [[172, 16], 12],
  [[192, 168], 16],
  [[198, 18], 15],
  [[224], 4],
  [[240], 4],
];

const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
const dotted = (parts: readonly number[]): string => parts.join('.');
const hex = (parts: readonly number[]): string =>
  `${((parts[0] << 8) | parts[1]).toString(16)}:${((parts[2] << 8) | parts[3]).toString(16)}`;

/** An address inside the range: its network bits from `first`, the rest from `random`. */
function inRange(first: readonly number[], prefix: number, random: readonly number[]): number[] {
  const network = [...first, 0, 0, 0, 0].slice(0, 4).reduce((value, octet) => value * 256 + octet, 0);
  const address = network + (random.reduce((value, octet) => value * 256 + octet, 0) % 2 ** (32 - prefix));
  return [24, 16, 8, 0].map((shift) => Math.floor(address / 2 ** shift) % 256);
}

/** An IPv6 address as the WHATWG URL serializer writes it: hexadecimal groups, zeros compressed. */
const canonical = (ip: string): string => new URL(`http://[${ip}]`).hostname.slice(1, -1);

describe('isPublicAddress, over generated addresses', () => {
  it('judges every IPv4 address as its IPv4-mapped IPv6 forms', () => {
    fc.assert(
      fc.property(octets, (parts) => {
        const verdict = isPublicAddress(dotted(parts));
        expect(isPublicAddress(`::ffff:${dotted(parts)}`)).toBe(verdict);
        expect(isPublicAddress(`::ffff:${hex(parts)}`)).toBe(verdict);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses every address of every forbidden IPv4 range, in every spelling', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FORBIDDEN_V4), octets, ([first, prefix], random) => {
        const parts = inRange(first, prefix, random);
        expect(isPublicAddress(dotted(parts))).toBe(false);
        expect(isPublicAddress(`::ffff:${dotted(parts)}`)).toBe(false);
        expect(isPublicAddress(`64:ff9b::${hex(parts)}`)).toBe(false);
        expect(isPublicAddress(`::${hex(parts)}`)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses every IPv6 address outside global unicast (2000::/3), whatever its spelling', () => {
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        const written = canonical(ip);
        // IPv4-mapped addresses are judged as the IPv4 address they carry (the first property).
        fc.pre(!written.startsWith('::ffff:'));
        const firstGroup = written.startsWith('::') ? 0 : parseInt(written.split(':')[0], 16);
        if (firstGroup >>> 13 !== 1) expect(isPublicAddress(ip)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses anything that is not an address, without throwing', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(!/^[0-9a-fA-F:.]+$/.test(text));
        expect(isPublicAddress(text)).toBe(false);
      }),
    );
  });
});
