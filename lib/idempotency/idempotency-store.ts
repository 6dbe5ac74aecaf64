import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectInterviewDataSource } from '../database/interview-data-source.js';
import { DataSource } from 'typeorm';
import type { AuthenticatedApiKey } from '../auth/authenticated-api-key.js';
import { Clock } from '../clock/clock.js';
import { returnedRows } from '../database/returned-rows.js';
import { SqlDialect } from '../database/sql-dialect.js';
import { ConflictError, ParameterInvalidError } from '../errors/api-error.js';
import { KEPT_ANSWER_NAME, SecretCipher } from '../secret-encryption/secret-cipher.js';
import { IdempotencyKeyEntity } from './idempotency-key.entity.js';
import type { SentAnswer } from './sent-answer.js';
import {
  IDEMPOTENCY_KEY_TTL_MS,
  IDEMPOTENCY_MAX_ROUNDS,
  IDEMPOTENT_RUN_LEASE_MS,
} from '../interview-api.tuning.js';

const KEYS = 'interview_idempotency_keys';

/** A condition as read back: a boolean on PostgreSQL, 1 or 0 on SQLite. */
const holds = (condition: boolean | number): boolean => Number(condition) === 1;

/** A request's key, per account and mode, and what it asked. */
export interface IdempotentRequest {
  scope: Pick<AuthenticatedApiKey, 'accountId' | 'livemode'>;
  key: string;
  fingerprint: string;
}

/** What to do with a request: run it (holding the key as `token`), or answer what it answered. */
export type IdempotentStart = { run: true; token: string } | { run: false; answer: SentAnswer };

/** An answer as `response_body` holds it: the body in base64, since it may be any bytes. */
interface KeptBody {
  content_type: string | null;
  body: string;
}

function keptBody(answer: SentAnswer): string {
  const kept: KeptBody = { content_type: answer.contentType, body: answer.body.toString('base64') };
  return JSON.stringify(kept);
}

function answerOf(status: number, stored: string): SentAnswer {
  const kept = JSON.parse(stored) as KeptBody;
  return { status, contentType: kept.content_type, body: Buffer.from(kept.body, 'base64') };
}

interface StoredKey {
  fingerprint: string;
  token: string;
  /** Both null while the request runs. */
  response_status: number | string | null;
  response_body: string | null;
  /** Past its day (a boolean, or 1/0 on SQLite). */
  expired: boolean | number;
  /** Held longer than a run's lease. */
  lease_over: boolean | number;
}

/**
 * The keys of idempotent requests in the module's database. The first run of a key holds it until
 * it records its answer; a retry then gets that answer, a concurrent one a conflict, one with other
 * parameters a refusal. A run that fails lets the key go, so the retry runs afresh.
 */
@Injectable()
export class IdempotencyStore {
  private readonly sql: SqlDialect;

  constructor(
    @InjectInterviewDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly cipher: SecretCipher,
  ) {
    this.sql = new SqlDialect(dataSource);
  }

  async start(request: IdempotentRequest): Promise<IdempotentStart> {
    for (let round = 0; round < IDEMPOTENCY_MAX_ROUNDS; round++) {
      const token = randomBytes(16).toString('hex');
      if (await this.claim(request, token)) return { run: true, token };
      const stored = await this.read(request);
      if (stored === null) continue;
      // A key past its day is forgotten, whatever it was used for.
      if (holds(stored.expired)) {
        if (await this.takeOver(request, stored.token, token)) return { run: true, token };
        continue;
      }
      if (stored.fingerprint !== request.fingerprint) {
        throw new ParameterInvalidError(
          'Idempotency-Key',
          `Keys for idempotent requests can only be used by the API key that first used them, with the same parameters. Use another key than ${JSON.stringify(request.key)} for a different request.`,
        );
      }
      if (stored.response_status === null || stored.response_body === null) {
        if (!holds(stored.lease_over)) {
          throw new ConflictError(
            'A request with this Idempotency-Key is still being processed. Retry once it has finished.',
          );
        }
        // The run holding it died without answering: this retry runs in its place.
        if (await this.takeOver(request, stored.token, token)) return { run: true, token };
        continue;
      }
      const body = this.cipher.decrypt(stored.response_body, KEPT_ANSWER_NAME);
      return { run: false, answer: answerOf(Number(stored.response_status), body) };
    }
    throw new ConflictError('This Idempotency-Key is being used by concurrent requests. Retry later.');
  }

  /**
   * Records the answer of the run holding the key, encrypted when keys are configured: which answers
   * carry a secret (an endpoint's, or one of the host's own routes) is the handlers' business.
   */
  async finish(request: IdempotentRequest, token: string, answer: SentAnswer): Promise<void> {
    const s = this.sql;
    await this.dataSource.query(
      `UPDATE ${KEYS} SET response_status = ${s.param(1)}, response_body = ${s.param(2)} WHERE ${this.held(3)}`,
      [answer.status, this.cipher.encrypt(keptBody(answer)), ...this.heldParams(request, token)],
    );
  }

  /** Lets the key go after its run: nothing was answered that a retry could be given again. */
  async release(request: IdempotentRequest, token: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${KEYS} WHERE ${this.held(1)} AND response_status IS NULL`, [
      ...this.heldParams(request, token),
    ]);
  }

  /** Deletes the keys past their day; answers how many (in one statement, so the count is theirs). */
  async purge(): Promise<number> {
    const cutoff = this.sql.time(new Date(this.clock.now().getTime() - IDEMPOTENCY_KEY_TTL_MS));
    const { affected } = await this.dataSource
      .createQueryBuilder()
      .delete()
      .from(IdempotencyKeyEntity)
      .where('created_at < :cutoff', { cutoff })
      .execute();
    return affected ?? 0;
  }

  /** Takes a key nobody holds; answers whether it did. */
  private async claim(request: IdempotentRequest, token: string): Promise<boolean> {
    const s = this.sql;
    const { accountId, livemode } = request.scope;
    const rows = await returnedRows(
      this.dataSource.manager,
      `INSERT INTO ${KEYS} (account_id, livemode, idempotency_key, fingerprint, token, created_at)
       VALUES (${s.list(1, 6)}) ON CONFLICT DO NOTHING RETURNING token`,
      [accountId, livemode, request.key, request.fingerprint, token, s.time(this.clock.now())],
    );
    return rows.length > 0;
  }

  /** Takes a key over from an expired or dead holder, unless another retry did first. */
  private async takeOver(request: IdempotentRequest, from: string, token: string): Promise<boolean> {
    const s = this.sql;
    const rows = await returnedRows(
      this.dataSource.manager,
      `UPDATE ${KEYS} SET fingerprint = ${s.param(1)}, token = ${s.param(2)}, created_at = ${s.param(3)},
         response_status = NULL, response_body = NULL
       WHERE ${this.held(4)} RETURNING token`,
      [request.fingerprint, token, s.time(this.clock.now()), ...this.heldParams(request, from)],
    );
    return rows.length > 0;
  }

  private async read(request: IdempotentRequest): Promise<StoredKey | null> {
    const s = this.sql;
    const { accountId, livemode } = request.scope;
    const now = this.clock.now().getTime();
    const rows: StoredKey[] = await this.dataSource.query(
      `SELECT fingerprint, token, response_status, response_body,
         created_at < ${s.param(1)} AS expired, created_at < ${s.param(2)} AS lease_over
       FROM ${KEYS}
       WHERE account_id = ${s.param(3)} AND livemode = ${s.param(4)} AND idempotency_key = ${s.param(5)}`,
      [
        s.time(new Date(now - IDEMPOTENCY_KEY_TTL_MS)),
        s.time(new Date(now - IDEMPOTENT_RUN_LEASE_MS)),
        accountId,
        livemode,
        request.key,
      ],
    );
    return rows[0] ?? null;
  }

  /** The key, as held by one run, from placeholder `start` on. */
  private held(start: number): string {
    const s = this.sql;
    return `account_id = ${s.param(start)} AND livemode = ${s.param(start + 1)} AND idempotency_key = ${s.param(start + 2)} AND token = ${s.param(start + 3)}`;
  }

  private heldParams(request: IdempotentRequest, token: string): unknown[] {
    return [request.scope.accountId, request.scope.livemode, request.key, token];
  }
}
