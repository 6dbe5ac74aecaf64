import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 32 base62 characters: about 190 bits of randomness. */
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;

export type KeyMode = 'test' | 'live';

export interface ParsedKey {
  mode: KeyMode;
}

function toBase62(value: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

function checksum(text: string): string {
  return toBase62(crc32(text), CHECKSUM_LENGTH);
}

/**
 * `<prefix>_<mode>_<32 random base62><6 base62 CRC-32>`. Base62 keeps `_` for the separators only
 * and lets a double-click select the whole key; randomInt draws each character without modulo
 * bias. The checksum lets the guard refuse a mistyped or made-up key without touching the database.
 */
export function generateApiKey(prefix: string, mode: KeyMode): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  const body = `${prefix}_${mode}_${random}`;
  return body + checksum(body);
}

/** The mode of a well-formed key with a valid checksum, or null for anything else. */
export function parseApiKey(prefix: string, key: string): ParsedKey | null {
  const expectedLength = prefix.length + 6 + RANDOM_LENGTH + CHECKSUM_LENGTH;
  if (key.length !== expectedLength || !key.startsWith(`${prefix}_`)) return null;
  const mode = key.slice(prefix.length + 1, prefix.length + 5);
  if ((mode !== 'test' && mode !== 'live') || key[prefix.length + 5] !== '_') return null;
  const secret = key.slice(prefix.length + 6);
  if (!/^[0-9A-Za-z]+$/.test(secret)) return null;
  const body = key.slice(0, key.length - CHECKSUM_LENGTH);
  if (checksum(body) !== key.slice(key.length - CHECKSUM_LENGTH)) return null;
  return { mode };
}

/**
 * A fast hash is enough: the key carries ~190 random bits, so there is nothing to brute-force,
 * and an unsalted digest can be looked up through a unique index in one query.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
