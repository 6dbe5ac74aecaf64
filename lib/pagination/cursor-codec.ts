import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Where a page ended. */
export interface CursorPosition {
  /**
   * The last row's created_at, as the database's own text (no precision lost to a JS Date; a
   * timestamptz's with its offset).
   */
  createdAt: string;
  id: string;
}

/** A cursor only works for the list, account, mode and filters it was issued for. */
export interface CursorBinding {
  list: string;
  accountId: string;
  livemode: boolean;
  filters: Readonly<Record<string, string | undefined>>;
}

/** The list, account and filters are digests: only the position makes one cursor longer than another. */
interface CursorPayload {
  v: 1;
  l: string;
  a: string;
  m: 'live' | 'test';
  f: string;
  t: string;
  i: string;
}

const VERSION = 'c1';
/** The longest id a cursor is issued for, in characters. */
export const MAX_CURSOR_ID_LENGTH = 255;
/**
 * Longer cursors are refused unread. The payload is at most about 1,700 bytes: the fixed fields,
 * a created_at text, and an id of MAX_CURSOR_ID_LENGTH characters even if JSON writes each as `\uXXXX`.
 */
const MAX_CURSOR_LENGTH = 4096;
const PAYLOAD_KEYS = ['a', 'f', 'i', 'l', 'm', 't', 'v'];

/** 132 bits of SHA-256: the MAC, not the digest, keeps a cursor from being forged. */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

function filterHash(filters: CursorBinding['filters']): string {
  const canonical = Object.keys(filters)
    .filter((key) => filters[key] !== undefined)
    .sort()
    .map((key) => [key, filters[key]]);
  return digest(JSON.stringify(canonical));
}

/**
 * Opaque, signed list cursors: `c1.<base64url payload>.<base64url HMAC-SHA256>`. The MAC key is
 * derived from the host's cursorSecret for this purpose only.
 */
export class CursorCodec {
  private readonly key: Buffer;

  constructor(cursorSecret: string) {
    this.key = createHmac('sha256', cursorSecret).update('interview-api cursor v1').digest();
  }

  encode(position: CursorPosition, binding: CursorBinding): string {
    // Characters as a varchar counts them: code points, not UTF-16 units.
    const idLength = [...position.id].length;
    if (idLength > MAX_CURSOR_ID_LENGTH) {
      throw new Error(
        `A list cursor carries the last row's id: ids of up to ${MAX_CURSOR_ID_LENGTH} characters can be ` +
          `paged, not "${position.id.slice(0, 40)}..." (${idLength}).`,
      );
    }
    const payload: CursorPayload = {
      v: 1,
      l: digest(binding.list),
      a: digest(binding.accountId),
      m: binding.livemode ? 'live' : 'test',
      f: filterHash(binding.filters),
      t: position.createdAt,
      i: position.id,
    };
    const body = `${VERSION}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** The position, or null for anything malformed, tampered with, or bound elsewhere. */
  decode(cursor: string, binding: CursorBinding): CursorPosition | null {
    if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_.-]+$/.test(cursor)) return null;
    const parts = cursor.split('.');
    if (parts.length !== 3 || parts[0] !== VERSION) return null;
    const given = Buffer.from(parts[2], 'base64url');
    if (given.toString('base64url') !== parts[2]) return null;
    const expected = this.mac(`${parts[0]}.${parts[1]}`);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const payload = this.parsePayload(parts[1]);
    if (!payload) return null;
    const bound =
      payload.l === digest(binding.list) &&
      payload.a === digest(binding.accountId) &&
      payload.m === (binding.livemode ? 'live' : 'test') &&
      payload.f === filterHash(binding.filters);
    return bound ? { createdAt: payload.t, id: payload.i } : null;
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest();
  }

  private parsePayload(encoded: string): CursorPayload | null {
    try {
      const value: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
      const record = value as Record<string, unknown>;
      if (Object.keys(record).sort().join() !== PAYLOAD_KEYS.join()) return null;
      const strings = ['l', 'a', 'm', 'f', 't', 'i'].every((key) => typeof record[key] === 'string');
      return strings && record.v === 1 ? (record as unknown as CursorPayload) : null;
    } catch {
      return null;
    }
  }
}
