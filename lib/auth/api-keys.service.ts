import { Inject, Injectable } from '@nestjs/common';
import { DataSource, IsNull, type Repository } from 'typeorm';
import { Clock } from '../clock/clock.js';
import { InjectInterviewDataSource } from '../database/interview-data-source.js';
import { containsNul } from '../database/nul-character.js';
import { queryPrepared } from '../database/prepared-statement.js';
import { API_KEY_BY_HASH } from '../delivery-store/postgres-statements.js';
import { ParameterInvalidError, ResourceMissingError } from '../errors/api-error.js';
import { checkAccountId } from './account-id.js';
import { generateId } from '../identifiers/generate-id.js';
import { unstorableText } from '../request/storable-text.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { generateApiKey, hashApiKey, parseApiKey, type KeyMode } from './api-key-format.js';
import { toApiKeyView, type ApiKeyView } from './api-key.view.js';
import type { AuthenticatedApiKey } from './authenticated-api-key.js';
import { KnownKeys, type KnownKey } from './known-keys.js';
import { LastUsedTracker } from './last-used-tracker.js';
import { RateLimiter } from './rate-limiter.js';
import { KNOWN_KEY_MAX_AGE_MS, KNOWN_KEYS_MAX } from '../interview-api.tuning.js';
import { isScope, type Scope } from './scopes.js';

export interface CreateApiKeyInput {
  accountId: string;
  name: string;
  mode: KeyMode;
  scopes: Scope[];
  /** The creating user's own scopes: a key never gets more than its creator holds. */
  creatorScopes: Scope[];
}

export interface CreatedApiKey {
  /** The full key, returned only here. */
  key: string;
  apiKey: ApiKeyView;
}

/** A row of API_KEY_BY_HASH. */
interface ApiKeyRow {
  id: string;
  account_id: string;
  livemode: boolean;
  /** The scopes as the entity's simple-array column stores them: comma-separated. */
  scopes: string;
  last_used_at: Date | null;
}

/** A simple-array column's text as TypeORM reads it: an empty text is no scopes. */
function scopesOf(text: string): Scope[] {
  return text === '' ? [] : (text.split(',') as Scope[]);
}

/**
 * A key id that cannot name a key (not a string, or holding a NUL character, which PostgreSQL
 * cannot look up) is an unknown key, never a query: an ignored `undefined` condition would match
 * every key of the account.
 */
function checkKeyId(id: string): void {
  if (typeof id !== 'string' || containsNul(id)) {
    throw new ResourceMissingError(`No such API key: ${id}.`, 'id');
  }
}

@Injectable()
export class ApiKeysService {
  private readonly keys: Repository<ApiKeyEntity>;
  private readonly knownKeys = new KnownKeys(KNOWN_KEYS_MAX, KNOWN_KEY_MAX_AGE_MS);

  constructor(
    @InjectInterviewDataSource() dataSource: DataSource,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
    private readonly lastUsed: LastUsedTracker,
    private readonly clock: Clock,
    private readonly rateLimiter: RateLimiter,
  ) {
    this.keys = dataSource.getRepository(ApiKeyEntity);
  }

  async create(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    checkAccountId(input.accountId);
    if (typeof input.name !== 'string' || input.name.trim().length === 0 || input.name.length > 255) {
      throw new ParameterInvalidError('name', 'name must be a non-empty string of at most 255 characters.');
    }
    // A NUL (PostgreSQL cannot store one) or half a surrogate pair: refused here, never stored changed.
    const unstorable = unstorableText(input.name, 'name');
    if (unstorable) throw unstorable;
    if (input.mode !== 'test' && input.mode !== 'live') {
      throw new ParameterInvalidError('mode', 'mode must be "test" or "live".');
    }
    if (!Array.isArray(input.scopes) || !Array.isArray(input.creatorScopes)) {
      throw new ParameterInvalidError('scopes', 'scopes and creatorScopes must be arrays of scopes.');
    }
    const unknown = input.scopes.find((scope) => !isScope(scope));
    if (unknown !== undefined)
      throw new ParameterInvalidError('scopes', `Unknown scope: ${String(unknown)}.`);
    const beyond = input.scopes.filter((scope) => !input.creatorScopes.includes(scope));
    if (beyond.length > 0) {
      throw new ParameterInvalidError(
        'scopes',
        `A key can only hold scopes its creator holds; not held: ${beyond.join(', ')}.`,
      );
    }
    const key = generateApiKey(this.options.keyPrefix, input.mode);
    const now = this.clock.now();
    const entity = this.keys.create({
      id: generateId('key', now),
      accountId: input.accountId,
      name: input.name.trim(),
      livemode: input.mode === 'live',
      scopes: [...new Set(input.scopes)],
      keyHash: hashApiKey(key),
      last4: key.slice(-4),
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
    });
    await this.keys.insert(entity);
    return { key, apiKey: toApiKeyView(entity) };
  }

  async list(accountId: string): Promise<ApiKeyView[]> {
    checkAccountId(accountId);
    const rows = await this.keys.find({
      where: { accountId },
      order: { createdAt: 'DESC', id: 'DESC' },
      cache: false,
    });
    return rows.map(toApiKeyView);
  }

  async retrieve(accountId: string, id: string): Promise<ApiKeyView> {
    checkAccountId(accountId);
    checkKeyId(id);
    const key = await this.keys.findOne({ where: { id, accountId }, cache: false });
    if (!key) throw new ResourceMissingError(`No such API key: ${id}.`, 'id');
    return toApiKeyView(key);
  }

  async revoke(accountId: string, id: string): Promise<void> {
    checkAccountId(accountId);
    checkKeyId(id);
    const exists = await this.keys.exists({ where: { id, accountId }, cache: false });
    if (!exists) throw new ResourceMissingError(`No such API key: ${id}.`, 'id');
    // Marked in Redis first: a process that knows the key asks Redis, not the database, on each
    // request. A revocation Redis did not take fails here, and the key is left as it was.
    await this.rateLimiter.markRevoked(id);
    await this.keys.update({ id, accountId, revokedAt: IsNull() }, { revokedAt: this.clock.now() });
  }

  /**
   * The key presented, read from the database, or null. Never through the host's query cache, so a
   * revocation is seen at once. The key found is kept (see known): for the guard only; called
   * directly, it skips the rate limit.
   * @internal
   */
  async authenticate(
    token: string,
    keyHash: string = hashApiKey(token),
  ): Promise<AuthenticatedApiKey | null> {
    if (!parseApiKey(this.options.keyPrefix, token)) return null;
    const generation = this.rateLimiter.connectionGeneration;
    const readAt = this.clock.now().getTime();
    const found = await this.read(keyHash);
    if (found === null) return null;
    this.lastUsed.touch({ id: found.key.id, lastUsedAt: found.lastUsedAt });
    this.knownKeys.set(keyHash, { ...found, readAt, generation });
    return found.key;
  }

  /**
   * A key presented before and found valid then, by its hash (hashApiKey), if this process still
   * knows it: for the guard, which trusts it only once Redis says it is not marked revoked, under
   * the connection it was read under (RateLimiter.admit); else the guard forgets it and
   * authenticates the key again. Only a key that parsed when it was read is kept, so one found
   * parses now.
   * @internal
   */
  known(keyHash: string): KnownKey | undefined {
    return this.knownKeys.get(keyHash, this.clock.now().getTime());
  }

  /**
   * The guard let a request through with a known key: its use counts for `last_used_at`.
   * @internal
   */
  used(known: KnownKey): void {
    this.lastUsed.touch({ id: known.key.id, lastUsedAt: known.lastUsedAt });
  }

  /** @internal */
  forget(keyHash: string): void {
    this.knownKeys.delete(keyHash);
  }

  private async read(keyHash: string): Promise<Pick<KnownKey, 'key' | 'lastUsedAt'> | null> {
    const { manager } = this.keys;
    if (manager.connection.options.type === 'postgres') {
      const [row] = await queryPrepared<ApiKeyRow>(manager, API_KEY_BY_HASH, [keyHash]);
      if (!row) return null;
      const key = {
        id: row.id,
        accountId: row.account_id,
        livemode: row.livemode,
        scopes: scopesOf(row.scopes),
      };
      return { key, lastUsedAt: row.last_used_at };
    }
    const record = await this.keys.findOne({ where: { keyHash }, cache: false });
    if (!record || record.revokedAt) return null;
    const key = {
      id: record.id,
      accountId: record.accountId,
      livemode: record.livemode,
      scopes: record.scopes,
    };
    return { key, lastUsedAt: record.lastUsedAt };
  }
}
