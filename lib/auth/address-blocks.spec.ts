import { AddressBlocks } from './address-blocks.js';

describe('AddressBlocks', () => {
  it('refuses an address until its time, then forgets it', () => {
    const blocks = new AddressBlocks();
    blocks.block('203.0.113.7', 1_500, 1_000);
    expect(blocks.remainingMs('203.0.113.7', 1_000)).toBe(500);
    expect(blocks.remainingMs('203.0.113.8', 1_000)).toBe(0);
    expect(blocks.remainingMs('203.0.113.7', 1_500)).toBe(0);
    blocks.block('203.0.113.7', 3_000, 2_000);
    expect(blocks.remainingMs('203.0.113.7', 2_000)).toBe(1_000);
  });

  it('holds at most its bound: expired blocks go first, then the earliest blocked', () => {
    const blocks = new AddressBlocks(3);
    blocks.block('a', 100, 0);
    blocks.block('b', 5_000, 0);
    blocks.block('c', 5_000, 0);
    // 'a' has expired: it makes room, and 'b' and 'c' stay.
    blocks.block('d', 5_000, 200);
    expect(['a', 'b', 'c', 'd'].map((address) => blocks.remainingMs(address, 200))).toEqual([
      0, 4_800, 4_800, 4_800,
    ]);
    // None has expired: the earliest blocked, 'b', makes room.
    blocks.block('e', 5_000, 300);
    expect(['b', 'c', 'd', 'e'].map((address) => blocks.remainingMs(address, 300) > 0)).toEqual([
      false,
      true,
      true,
      true,
    ]);
  });
});
