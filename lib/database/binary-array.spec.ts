import { BinaryArray } from './binary-array.js';

describe('BinaryArray', () => {
  it('lays out the header, the lengths and the elements of PostgreSQL’s binary array format', () => {
    const bytes = new BinaryArray('text', ['ab', null, 'é']).toPostgres();
    const ints = (from: number, count: number): number[] =>
      Array.from({ length: count }, (_, i) => bytes.readInt32BE(from + 4 * i));
    // One dimension, has nulls, text (oid 25), three elements from index 1.
    expect(ints(0, 5)).toEqual([1, 1, 25, 3, 1]);
    expect(bytes.readInt32BE(20)).toBe(2);
    expect(bytes.subarray(24, 26).toString()).toBe('ab');
    expect(bytes.readInt32BE(26)).toBe(-1);
    expect(bytes.readInt32BE(30)).toBe(2);
    expect(bytes.subarray(34).toString()).toBe('é');
  });

  it('flags no nulls when there are none, and encodes an empty array', () => {
    expect(new BinaryArray('integer', [1, -1]).toPostgres().readInt32BE(4)).toBe(0);
    expect(new BinaryArray('boolean', []).toPostgres()).toHaveLength(20);
  });

  it("encodes a timestamptz as microseconds from 2000-01-01 UTC: the instant, whatever the process's zone", () => {
    const bytes = new BinaryArray('timestamptz', [new Date('2000-01-01T00:00:01.234Z')]).toPostgres();
    expect(bytes.readInt32BE(8)).toBe(1184);
    expect(bytes.readBigInt64BE(24)).toBe(1_234_000n);
  });

  it.each([
    ['integer', 1.5],
    ['integer', '1'],
    ['text', 1],
    ['boolean', 'true'],
    ['timestamptz', new Date(Number.NaN)],
    ['timestamptz', '2026-11-23 10:00:00'],
  ] as const)('refuses to bind %s from %p rather than send something else', (type, value) => {
    expect(() => new BinaryArray(type, [value]).toPostgres()).toThrow(TypeError);
  });
});
