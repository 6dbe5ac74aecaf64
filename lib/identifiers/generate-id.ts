import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const RANDOM_CHARS = 16;

/** The random part of the last id, per millisecond, so that ids of one process keep their order. */
let lastTime = -1;
let lastRandom: number[] = [];

function freshRandom(): number[] {
  const bytes = randomBytes(RANDOM_CHARS);
  // 16 characters of 5 bits each: 80 random bits; the top bit of each byte is dropped.
  return Array.from(bytes, (byte) => byte & 31);
}

/** The next random part in the same millisecond: the last one plus one (carrying in base 32). */
function increment(digits: number[]): number[] {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i] < 31) {
      next[i]++;
      return next;
    }
    next[i] = 0;
  }
  return freshRandom();
}

/**
 * A public id: the prefix, then 10 characters of millisecond time and 16 random characters
 * (80 bits), all lowercase Crockford base32. Ids sort by creation time, which keeps the
 * (created_at, id) keyset index append-mostly; within one millisecond a process counts up from its
 * last id, so objects created in the same millisecond still list in the order they were made.
 */
export function generateId(prefix: string, now: Date = new Date()): string {
  const time = now.getTime();
  lastRandom = time === lastTime ? increment(lastRandom) : freshRandom();
  lastTime = time;
  return `${idTimePrefix(prefix, now)}${lastRandom.map((digit) => CROCKFORD[digit]).join('')}`;
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
