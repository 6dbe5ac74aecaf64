import { randomFillSync } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const RANDOM_CHARS = 16;

/**
 * Random bytes drawn 4 KiB at a time: one call into the crypto library per 256 ids instead of one
 * per id, which cost more than the rest of the id.
 */
const pool = Buffer.alloc(RANDOM_CHARS * 256);
let poolOffset = pool.length;

/** The random part of the last id, per millisecond, so that ids of one process keep their order. */
let lastTime = -1;
const lastRandom = new Uint8Array(RANDOM_CHARS);

function drawRandom(): void {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  // 16 characters of 5 bits each: 80 random bits; the top bits of each byte are dropped.
  for (let i = 0; i < RANDOM_CHARS; i++) lastRandom[i] = pool[poolOffset + i] & 31;
  poolOffset += RANDOM_CHARS;
}

/** The next random part in the same millisecond: the last one plus one (carrying in base 32). */
function increment(): void {
  for (let i = RANDOM_CHARS - 1; i >= 0; i--) {
    if (lastRandom[i] < 31) {
      lastRandom[i]++;
      return;
    }
    lastRandom[i] = 0;
  }
  drawRandom();
}

/**
 * A public id: the prefix, then 10 characters of millisecond time and 16 random characters
 * (80 bits), all lowercase Crockford base32. Ids sort by creation time, which keeps the
 * (created_at, id) keyset index append-mostly; within one millisecond a process counts up from its
 * last id, so objects created in the same millisecond still list in the order they were made.
 */
export function generateId(prefix: string, now: Date = new Date()): string {
  const time = now.getTime();
  if (time === lastTime) increment();
  else drawRandom();
  lastTime = time;
  let random = '';
  for (const digit of lastRandom) random += CROCKFORD[digit];
  return `${idTimePrefix(prefix, now)}${random}`;
}

/** 10 base32 characters of milliseconds: from the Unix epoch to the year 37648. */
const TIME_LIMIT = 32 ** 10;

/**
 * The prefix and time part of an id, for ids whose 16 random characters are drawn by the database
 * (lowercase hex, a subset of the same alphabet) when it creates many rows in one statement, and
 * for the range of ids created before a time. A time the 10 characters cannot hold is refused:
 * encoded anyway, it would not sort with the ids, and retention deletes by that order.
 */
export function idTimePrefix(prefix: string, now: Date): string {
  let time = now.getTime();
  if (!Number.isInteger(time) || time < 0 || time >= TIME_LIMIT) {
    throw new RangeError(`An id cannot encode the time ${String(now.getTime())} ms since the Unix epoch.`);
  }
  let timePart = '';
  for (let i = 0; i < 10; i++) {
    timePart = CROCKFORD[time % 32] + timePart;
    time = Math.floor(time / 32);
  }
  return `${prefix}_${timePart}`;
}
