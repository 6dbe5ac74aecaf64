import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { Clock } from '../clock/clock.js';
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
import { LastUsedTracker } from './last-used-tracker.js';
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
  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
    private readonly lastUsed: LastUsedTracker,
    private readonly clock: Clock,
  ) {}

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
    const result = await this.keys.update(
      { id, accountId, revokedAt: IsNull() },
      { revokedAt: this.clock.now() },
    );
    if (result.affected) return;
    const exists = await this.keys.exists({ where: { id, accountId }, cache: false });
    if (!exists) throw new ResourceMissingError(`No such API key: ${id}.`, 'id');
  }

  /**
   * The key presented, or null. Never cached (the host's query cache included), so a revocation is
   * seen by every instance at once. For the guard only: called directly, it skips the rate limit.
   * @internal
   */
  async authenticate(token: string): Promise<AuthenticatedApiKey | null> {
    if (!parseApiKey(this.options.keyPrefix, token)) return null;
    const keyHash = hashApiKey(token);
    const { manager } = this.keys;
    if (manager.connection.options.type === 'postgres') {
      const [row] = await queryPrepared<ApiKeyRow>(manager, API_KEY_BY_HASH, [keyHash]);
      if (!row) return null;
      this.lastUsed.touch({ id: row.id, lastUsedAt: row.last_used_at });
      return { id: row.id, accountId: row.account_id, livemode: row.livemode, scopes: scopesOf(row.scopes) };
    }
    const record = await this.keys.findOne({ where: { keyHash }, cache: false });
    if (!record || record.revokedAt) return null;
    this.lastUsed.touch(record);
    return {
      id: record.id,
      accountId: record.accountId,
      livemode: record.livemode,
      scopes: record.scopes,
    };
  }
}
