import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A public id: the prefix, then 10 characters of millisecond time and 16 random characters
 * (80 bits), all lowercase Crockford base32. Ids sort by creation time, which keeps the
 * (created_at, id) keyset index append-mostly, and the random part makes them unguessable.
 */
export function generateId(prefix: string, now: Date = new Date()): string {
  const random = randomBytes(10);
  let randomPart = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of random) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      randomPart += CROCKFORD[(buffer >> bits) & 31];
    }
  }
  return `${idTimePrefix(prefix, now)}${randomPart}`;
}

/**
 * The prefix and time part of an id, for ids whose 16 random characters are drawn by the database
 * (lowercase hex, a subset of the same alphabet) when it creates many rows in one statement.
 */
export function idTimePrefix(prefix: string, now: Date): string {
  let time = now.getTime();
  let timePart = '';
  for (let i = 0; i < 10; i++) {
    timePart = CROCKFORD[time % 32] + timePart;
    time = Math.floor(time / 32);
  }
  return `${prefix}_${timePart}`;
}
