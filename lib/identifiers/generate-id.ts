import { randomFillSync } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const RANDOM_CHARS = 16;

/** Random bytes drawn 4 KiB (256 ids) at a time: a crypto call per id costs more than the rest of it. */
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
 * A public id: the prefix, then 10 characters of millisecond time and 16 random ones (80 bits), in
 * lowercase Crockford base32. Ids sort by creation time, also within a millisecond in one process
 * (it counts up from its last id), so the keyset index stays append-mostly.
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
 * The prefix and time part of an id: for ids whose random part the database draws (lowercase hex,
 * within the alphabet) and for the range of ids before a time. A time 10 characters cannot hold is
 * refused, since it would not sort with the ids and retention deletes by that order.
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
