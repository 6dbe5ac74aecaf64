import type { AuthenticatedApiKey } from './authenticated-api-key.js';

/** A key found valid in the database, as a process keeps it. */
export interface KnownKey {
  key: AuthenticatedApiKey;
  lastUsedAt: Date | null;
  /** When it was read, in ms since the epoch. */
  readAt: number;
  /** The rate limiter's connection generation before it was read (RateLimiter.connectionGeneration). */
  generation: number;
}

/**
 * Keys found valid, by the hash of the key presented, so that a request need not read its key from
 * the database again. Holding one proves nothing by itself: the guard uses it only once Redis, in the
 * rate limiter's round trip, has said the key is not marked revoked, on the connection it was read
 * under. At most `max` keys, the least recently stored dropped first, none older than `maxAgeMs`.
 */
export class KnownKeys {
  private readonly byHash = new Map<string, KnownKey>();

  constructor(
    private readonly max: number,
    private readonly maxAgeMs: number,
  ) {}

  get(hash: string, now: number): KnownKey | undefined {
    const known = this.byHash.get(hash);
    if (known !== undefined && now - known.readAt >= this.maxAgeMs) {
      this.byHash.delete(hash);
      return undefined;
    }
    return known;
  }

  set(hash: string, known: KnownKey): void {
    this.byHash.delete(hash);
    this.byHash.set(hash, known);
    if (this.byHash.size > this.max) this.byHash.delete(this.byHash.keys().next().value as string);
  }

  delete(hash: string): void {
    this.byHash.delete(hash);
  }
}
