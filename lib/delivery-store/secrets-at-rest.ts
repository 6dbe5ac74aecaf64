import type { DataSource } from 'typeorm';
import { SqlDialect } from '../database/sql-dialect.js';
import {
  endpointSecretName,
  KEPT_ANSWER_NAME,
  type SecretCipher,
} from '../secret-encryption/secret-cipher.js';
import { SECRETS_AT_REST_PAGE } from '../interview-api.tuning.js';
import { SECRETS_AT_REST as PG } from './postgres-statements.js';
import { SECRETS_AT_REST as SQLITE } from './sqlite-statements.js';

interface EndpointSecretRow {
  id: string;
  secret: string;
}

interface KeptAnswerRow {
  account_id: string;
  /** A boolean on PostgreSQL, 1 or 0 on SQLite. */
  livemode: boolean | number;
  idempotency_key: string;
  response_body: string;
}

/**
 * Brings the stored secrets under the cipher's first key, at start and before any send: plaintext
 * ones (stored before a key was configured) and those under a key no longer first (a rotation). A
 * value under a key not configured fails the start, naming the option. Without keys, an encrypted
 * value fails the start the same way: nothing could sign with it.
 */
export async function encryptSecretsAtRest(dataSource: DataSource, cipher: SecretCipher): Promise<void> {
  const statements = new SqlDialect(dataSource).postgres ? PG : SQLITE;
  const prefix = cipher.currentPrefix;
  if (prefix === null) {
    for (const [sql, what] of [
      [statements.encryptedEndpoint, 'A stored webhook signing secret'],
      [statements.encryptedAnswer, KEPT_ANSWER_NAME],
    ] as const) {
      const [row] = (await dataSource.query(sql)) as { value: string }[];
      if (row !== undefined) cipher.decrypt(row.value, what);
    }
    return;
  }
  await encryptEndpoints(dataSource, cipher, statements, `${prefix}%`);
  await encryptKeptAnswers(dataSource, cipher, statements, `${prefix}%`);
}

async function encryptEndpoints(
  dataSource: DataSource,
  cipher: SecretCipher,
  statements: typeof PG | typeof SQLITE,
  notUnder: string,
): Promise<void> {
  let after = '';
  for (;;) {
    const rows = (await dataSource.query(statements.endpointsToEncrypt, [
      after,
      notUnder,
      SECRETS_AT_REST_PAGE,
    ])) as EndpointSecretRow[];
    for (const { id, secret } of rows) {
      const encrypted = cipher.encrypt(cipher.decrypt(secret, endpointSecretName(id)));
      // A row changed since the read (a rotate_secret, another process's start) is left as it is now.
      await dataSource.query(statements.encryptEndpoint, [encrypted, id, secret]);
    }
    if (rows.length < SECRETS_AT_REST_PAGE) return;
    after = rows[rows.length - 1].id;
  }
}

async function encryptKeptAnswers(
  dataSource: DataSource,
  cipher: SecretCipher,
  statements: typeof PG | typeof SQLITE,
  notUnder: string,
): Promise<void> {
  let last: KeptAnswerRow | null = null;
  for (;;) {
    const rows = (
      last === null
        ? await dataSource.query(statements.answersToEncryptFirst, [notUnder, SECRETS_AT_REST_PAGE])
        : await dataSource.query(statements.answersToEncryptNext, nextPageParams(statements, notUnder, last))
    ) as KeptAnswerRow[];
    for (const row of rows) {
      const encrypted = cipher.encrypt(cipher.decrypt(row.response_body, KEPT_ANSWER_NAME));
      await dataSource.query(statements.encryptAnswer, [
        encrypted,
        row.account_id,
        Number(row.livemode) === 1,
        row.idempotency_key,
        row.response_body,
      ]);
    }
    if (rows.length < SECRETS_AT_REST_PAGE) return;
    last = rows[rows.length - 1];
  }
}

/** The next page's parameters, in each database's order (see the statements). */
function nextPageParams(
  statements: typeof PG | typeof SQLITE,
  notUnder: string,
  last: KeptAnswerRow,
): unknown[] {
  const after = [last.account_id, Number(last.livemode) === 1, last.idempotency_key];
  return statements === PG
    ? [notUnder, SECRETS_AT_REST_PAGE, ...after]
    : [notUnder, ...after, SECRETS_AT_REST_PAGE];
}
