import { createHash, randomBytes } from 'node:crypto';
import { TypeOrmModule } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  IdempotencyKeyEntity,
  InterviewApiModule,
  WebhookEndpointEntity,
  type WebhookOptions,
} from '../lib/index.js';
import { SECRETS_AT_REST_PAGE } from '../lib/interview-api.tuning.js';
import { EncryptionKey } from '../lib/secret-encryption/encryption-key.js';
import { SecretCipher } from '../lib/secret-encryption/secret-cipher.js';
import { generateWebhookSecret } from '../lib/signing/index.js';
import { apiClient } from './support/api-client.js';
import { TestDatabase } from './support/database.js';
import { CURSOR_SECRET, type TestHost } from './support/host-app.js';
import { closedAfterEachTest } from './support/per-test.js';
import { type Receiver } from './support/receiver.js';
import { OpenedDataSources, startApp } from './support/started-app.js';
import { warningsDuring } from './support/warnings.js';
import { publishResults, REDIS, TEST_WEBHOOKS, verifiesWith } from './support/webhooks.js';

const OPTION = 'webhooks.secretEncryptionKeys';
const ACCOUNT = 'acct_enc';

/** A key's id as stored values name it: the first 8 hex digits of its SHA-256. */
const keyId = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);
const encryptedUnder = (key: Buffer): RegExp => new RegExp(`^enc:v1:${keyId(key)}:[A-Za-z0-9+/]+={0,2}$`);

interface StoredSecrets {
  /** Each endpoint's `secret` column, by id. */
  endpoints: Map<string, string>;
  /** Each kept idempotent answer's `response_body` column. */
  answers: string[];
}

async function storedSecrets(host: TestHost): Promise<StoredSecrets> {
  const dataSource = host.app.get(DataSource);
  const endpoints: { id: string; secret: string }[] = await dataSource.query(
    'SELECT id, secret FROM interview_webhook_endpoints',
  );
  const answers: { response_body: string }[] = await dataSource.query(
    'SELECT response_body FROM interview_idempotency_keys WHERE response_body IS NOT NULL',
  );
  return {
    endpoints: new Map(endpoints.map((row) => [row.id, row.secret])),
    answers: answers.map((row) => row.response_body),
  };
}

/**
 * What a reader of the rows learns without a key: the secret column as it is, and a kept answer's
 * bytes when it is the store's plaintext form (JSON with the body in base64).
 */
function readableWithoutKey(stored: StoredSecrets): string[] {
  const answers = stored.answers.map((text) => {
    try {
      const kept = JSON.parse(text) as { body: string };
      return Buffer.from(kept.body, 'base64').toString('utf8');
    } catch {
      return text;
    }
  });
  return [...stored.endpoints.values(), ...answers];
}

function expectAllUnder(stored: StoredSecrets, key: Buffer, endpoints: number, answers: number): void {
  expect(stored.endpoints.size).toBe(endpoints);
  expect(stored.answers).toHaveLength(answers);
  for (const value of [...stored.endpoints.values(), ...stored.answers]) {
    expect(value).toMatch(encryptedUnder(key));
  }
  expect(readableWithoutKey(stored).filter((text) => text.includes('whsec_'))).toEqual([]);
}

describe('webhook signing secrets encrypted at rest (webhooks.secretEncryptionKeys)', () => {
  const { boot, hosts, receivers } = closedAfterEachTest();
  const dataSources = new OpenedDataSources();
  let db: TestDatabase;

  beforeEach(async () => {
    db = await TestDatabase.create();
  });
  afterEach(async () => {
    await dataSources.closeAll();
    await db.drop();
  });

  /** A host on the test's database, kept when it closes: the next host starts on the same rows. */
  const bootWith = (keys?: (Buffer | string)[]): Promise<TestHost> =>
    boot({ db, keepDatabase: true, module: { webhooks: { secretEncryptionKeys: keys } } });

  /** POST /v1/webhook_endpoints with an Idempotency-Key; answers the endpoint and whether it was replayed. */
  async function createIdempotently(
    host: TestHost,
    key: string,
    idempotencyKey: string,
    url: string,
  ): Promise<{ id: string; secret: string; replayed: boolean }> {
    const res = await request(host.app.getHttpServer())
      .post('/v1/webhook_endpoints')
      .set('Authorization', `Bearer ${key}`)
      .set('Idempotency-Key', idempotencyKey)
      .send({ url, enabled_events: ['*'] });
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_/);
    return {
      id: res.body.id,
      secret: res.body.secret,
      replayed: res.headers['idempotent-replayed'] === 'true',
    };
  }

  /** Publishes one event and expects every receiver to get it, signed with its endpoint's secret. */
  async function expectDeliveredSigned(host: TestHost, targets: [Receiver, string][]): Promise<void> {
    const before = targets.map(([receiver]) => receiver.requests.length);
    const [event] = await publishResults(host, ACCOUNT);
    for (const [index, [receiver, secret]] of targets.entries()) {
      const received = await receiver.waitFor(before[index] + 1);
      const delivery = received.find((req) => JSON.parse(req.body).id === event.id);
      expect(delivery).toBeDefined();
      expect(verifiesWith(delivery!, secret)).toEqual({ standard: true, ours: true });
    }
  }

  /** The error a start with these webhooks options fails with. */
  async function startError(webhooks: WebhookOptions | Record<string, unknown>): Promise<Error> {
    const start = startApp([
      TypeOrmModule.forRootAsync({
        useFactory: () => ({ ...db.options(), autoLoadEntities: true }),
        dataSourceFactory: dataSources.factory,
      }),
      InterviewApiModule.forRoot({
        keyPrefix: 'iv',
        cursorSecret: CURSOR_SECRET,
        redis: REDIS,
        queuePrefix: db.name,
        webhooks: { ...TEST_WEBHOOKS, ...webhooks },
      }),
    ]);
    return start.then(
      async (app) => {
        await app.close();
        throw new Error('the module started');
      },
      (error: Error) => error,
    );
  }

  it('stores secrets and kept answers encrypted, answers the secret decrypted, and signs with it', async () => {
    const key = randomBytes(32);
    const host = await bootWith([key]);
    const apiKey = await host.createKey(ACCOUNT, 'test');
    const receiver = await receivers.start();
    const created = await createIdempotently(host, apiKey, 'create-1', receiver.url);
    const again = await createIdempotently(host, apiKey, 'create-1', receiver.url);
    expect(again).toEqual({ ...created, replayed: true });
    expect(created.replayed).toBe(false);

    const rotated = await apiClient(host, apiKey).post(`/v1/webhook_endpoints/${created.id}/rotate_secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(created.secret);

    expectAllUnder(await storedSecrets(host), key, 1, 1);
    await expectDeliveredSigned(host, [[receiver, rotated.body.secret as string]]);
  });

  it('encrypts a plaintext database in place when a key is configured, and keeps delivering', async () => {
    const plain = await bootWith();
    const apiKey = await plain.createKey(ACCOUNT, 'test');
    const [first, second] = [await receivers.start(), await receivers.start()];
    const one = await createIdempotently(plain, apiKey, 'create-1', first.url);
    const two = await createIdempotently(plain, apiKey, 'create-2', second.url);
    // The control: without a key, both secrets can be read from the rows.
    const readable = readableWithoutKey(await storedSecrets(plain));
    for (const secret of [one.secret, two.secret]) {
      expect(readable.filter((text) => text.includes(secret))).toHaveLength(2);
    }
    await hosts.closeNow(plain);

    // Two processes start at once on the plaintext rows: each row is encrypted once.
    const key = randomBytes(32);
    const [host] = await Promise.all([bootWith([key]), bootWith([key.toString('base64')])]);
    expectAllUnder(await storedSecrets(host), key, 2, 2);
    expect(await createIdempotently(host, apiKey, 'create-1', first.url)).toEqual({ ...one, replayed: true });
    expect(await createIdempotently(host, apiKey, 'create-2', second.url)).toEqual({
      ...two,
      replayed: true,
    });
    await expectDeliveredSigned(host, [
      [first, one.secret],
      [second, two.secret],
    ]);
  });

  it('encrypts in pages, past the first, every row of both tables', async () => {
    const plain = await bootWith();
    const dataSource = plain.app.get(DataSource);
    const count = 2 * SECRETS_AT_REST_PAGE + 1;
    const now = new Date();
    const secrets = Array.from({ length: count }, () => generateWebhookSecret());
    const ids = secrets.map((_, i) => `whk_page${String(i).padStart(4, '0')}`);
    await dataSource.getRepository(WebhookEndpointEntity).insert(
      secrets.map((secret, i) => ({
        id: ids[i],
        accountId: ACCOUNT,
        livemode: false,
        url: 'https://example.com/hook',
        description: null,
        enabledEvents: ['*'],
        status: 'enabled' as const,
        disabledReason: null,
        secret,
        failingSince: null,
        lastFailedAt: null,
        createdAt: now,
        updatedAt: now,
      })),
    );
    // Both modes, so that pages turn within an account on the mode as well as on the key.
    const answers = secrets.map((secret) => JSON.stringify({ secret }));
    await dataSource.getRepository(IdempotencyKeyEntity).insert(
      answers.map((answer, i) => ({
        accountId: ACCOUNT,
        livemode: i % 2 === 0,
        idempotencyKey: `key-${i}`,
        fingerprint: '0'.repeat(64),
        token: '0'.repeat(32),
        responseStatus: 201,
        responseBody: JSON.stringify({
          content_type: 'application/json',
          body: Buffer.from(answer).toString('base64'),
        }),
        createdAt: now,
      })),
    );
    await hosts.closeNow(plain);

    const key = randomBytes(32);
    const host = await bootWith([key]);
    const stored = await storedSecrets(host);
    expectAllUnder(stored, key, count, count);
    const cipher = new SecretCipher([new EncryptionKey(key)]);
    expect(ids.map((id) => cipher.decrypt(stored.endpoints.get(id)!))).toEqual(secrets);
    const kept = stored.answers.map((text) => {
      const { body } = JSON.parse(cipher.decrypt(text)) as { body: string };
      return Buffer.from(body, 'base64').toString('utf8');
    });
    expect(kept.sort()).toEqual([...answers].sort());
  });

  it('re-encrypts every value under a new first key, and a start without that key then fails', async () => {
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    const before = await bootWith([oldKey]);
    const apiKey = await before.createKey(ACCOUNT, 'test');
    const [first, second] = [await receivers.start(), await receivers.start()];
    const one = await createIdempotently(before, apiKey, 'create-1', first.url);
    const two = await createIdempotently(before, apiKey, 'create-2', second.url);
    expectAllUnder(await storedSecrets(before), oldKey, 2, 2);
    await hosts.closeNow(before);

    const after = await bootWith([newKey, oldKey]);
    expectAllUnder(await storedSecrets(after), newKey, 2, 2);
    expect(await createIdempotently(after, apiKey, 'create-1', first.url)).toEqual({
      ...one,
      replayed: true,
    });
    await expectDeliveredSigned(after, [
      [first, one.secret],
      [second, two.secret],
    ]);
    await hosts.closeNow(after);

    const error = await startError({ secretEncryptionKeys: [oldKey] });
    expect(error.message).toContain(OPTION);
    expect(error.message).toContain(keyId(newKey));
    for (const material of [oldKey, newKey]) {
      expect(error.message).not.toContain(material.toString('base64'));
      expect(error.message).not.toContain(material.toString('hex'));
    }
    // The rows are as the last start left them: nothing was rewritten by the failed one.
    const rows = await bootWith([newKey]);
    expectAllUnder(await storedSecrets(rows), newKey, 2, 2);
  });

  it('fails to start without keys once secrets are stored encrypted', async () => {
    const key = randomBytes(32);
    const host = await bootWith([key]);
    const receiver = await receivers.start();
    await createIdempotently(host, await host.createKey(ACCOUNT, 'test'), 'create-1', receiver.url);
    await hosts.closeNow(host);
    const error = await startError({});
    expect(error.message).toContain(`${OPTION} is not set`);
  });

  it.each<[string, unknown, string]>([
    ['an empty list', [], OPTION],
    ['a 16-byte Buffer', [randomBytes(16)], `${OPTION}[0]`],
    ['base64 of 31 bytes', [randomBytes(31).toString('base64')], `${OPTION}[0]`],
    ['text that is not base64', ['not base64 at all, but 44 characters long!!'], `${OPTION}[0]`],
    ['a number', [32], `${OPTION}[0]`],
    ['the same key twice', [Buffer.alloc(32, 7), Buffer.alloc(32, 7).toString('base64')], `${OPTION}[1]`],
    ['a key that is not a list', Buffer.alloc(32, 7), OPTION],
  ])('refuses to start with %s, naming the option and not the key', async (_, keys, option) => {
    const error = await startError({ secretEncryptionKeys: keys });
    expect(error).toMatchObject({
      name: 'InvalidModuleOptionsError',
      message: expect.stringContaining(`option "${option}"`),
    });
    const given = (Array.isArray(keys) ? keys : [keys]).map((k) => (Buffer.isBuffer(k) ? k : null));
    for (const material of given.filter((k): k is Buffer => k !== null)) {
      expect(error.message).not.toContain(material.toString('base64'));
    }
  });

  describe('in production', () => {
    const nodeEnv = process.env.NODE_ENV;
    beforeEach(() => {
      process.env.NODE_ENV = 'production';
    });
    afterEach(() => {
      process.env.NODE_ENV = nodeEnv;
    });

    const notices = (warnings: string[]): string[] =>
      warnings.filter((warning) => warning.includes('stored unencrypted'));

    it('notes once at start that secrets are stored unencrypted, naming the option', async () => {
      const warnings = await warningsDuring(async () => {
        await bootWith();
      });
      expect(notices(warnings)).toEqual([
        `Webhook signing secrets are stored unencrypted: set ${OPTION} to encrypt them at rest.`,
      ]);
    });

    it('notes nothing with keys', async () => {
      const warnings = await warningsDuring(async () => {
        await bootWith([randomBytes(32)]);
      });
      expect(notices(warnings)).toEqual([]);
    });
  });
});
