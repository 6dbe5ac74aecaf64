import {
  Body,
  type CallHandler,
  ClassSerializerInterceptor,
  type ExecutionContext,
  Header,
  type NestInterceptor,
  Post,
  Query,
  Res,
  StreamableFile,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { Exclude, Expose } from 'class-transformer';
import type { Response as ExpressResponse } from 'express';
import { IsString } from 'class-validator';
import { map, type Observable } from 'rxjs';
import request, { type Response } from 'supertest';
import { DataSource } from 'typeorm';
import { ApiV1Controller, WebhookEndpointEntity } from '../lib/index.js';
import { Clock } from '../lib/clock/clock.js';
import { IdempotencyStore } from '../lib/idempotency/idempotency-store.js';
import { IDEMPOTENCY_KEY_TTL_MS, IDEMPOTENT_RUN_LEASE_MS } from '../lib/interview-api.tuning.js';
import { requestFingerprint } from '../lib/idempotency/request-fingerprint.js';
import { sleep } from './support/api-client.js';
import { errorEnvelope, expectParameterInvalid } from './support/api-error.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { OpenReceivers } from './support/receiver.js';

class PlaceOrder {
  @IsString()
  item!: string;
}

/** A host's own POST under /v1 that takes a while and counts how often it really ran. */
@ApiV1Controller('host_orders')
class HostOrdersController {
  static runs = 0;

  @Post()
  async place(@Body() order: PlaceOrder): Promise<{ object: string; item: string; run: number }> {
    await sleep(300);
    HostOrdersController.runs += 1;
    return { object: 'order', item: order.item, run: HostOrdersController.runs };
  }

  /** Answers by itself: no stored answer could stand in for it. */
  @Post('by_hand')
  byHand(@Res() res: ExpressResponse): void {
    HostOrdersController.runs += 1;
    res.status(201).json({ object: 'order', run: HostOrdersController.runs });
  }
}

class Candidate {
  id = 'cand_1';
  object = 'candidate';
  @Exclude()
  internalNotes = 'salary expectations';

  @Expose()
  get display(): string {
    return 'Cand One';
  }
}

/**
 * A host's POST whose answer a serializer shapes outside the module's interceptor (class decorators
 * apply bottom up, so this one is listed first), as a global ClassSerializerInterceptor would.
 */
@ApiV1Controller('host_candidates')
@UseInterceptors(ClassSerializerInterceptor)
class HostCandidatesController {
  static runs = 0;

  @Post()
  create(): Candidate {
    HostCandidatesController.runs += 1;
    return new Candidate();
  }
}

/** A host's POST answering a file, streamed out rather than sent whole. */
@ApiV1Controller('host_exports')
class HostExportsController {
  static runs = 0;

  @Post()
  @Header('Content-Type', 'text/csv')
  export(): StreamableFile {
    HostExportsController.runs += 1;
    return new StreamableFile(Buffer.from(`id,run\nexp_1,${HostExportsController.runs}\n`));
  }
}

/** A host's POST that reads its query. */
@ApiV1Controller('host_quotes')
class HostQuotesController {
  static runs = 0;

  @Post()
  quote(@Query() query: Record<string, string | string[]>): { object: string; query: object; run: number } {
    HostQuotesController.runs += 1;
    return { object: 'quote', query, run: HostQuotesController.runs };
  }
}

/** A host's upload: multer parses the multipart body inside the route, after the module has looked. */
@ApiV1Controller('host_imports')
class HostImportsController {
  static runs = 0;

  @Post()
  @UseInterceptors(FileInterceptor('file'))
  import(@UploadedFile() file: { originalname: string; size: number }): { object: string; name: string } {
    HostImportsController.runs += 1;
    return { object: 'import', name: file.originalname };
  }
}

/** Fails the answers of a handler after it has run, once, as a layer around it might. */
class FailsOnceOutsideInterceptor implements NestInterceptor {
  static armed = false;

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map((value: unknown) => {
        if (!FailsOnceOutsideInterceptor.armed) return value;
        FailsOnceOutsideInterceptor.armed = false;
        throw new Error('failed after the handler');
      }),
    );
  }
}

/** A host's POST whose answer an interceptor outside the module's may fail. */
@ApiV1Controller('host_notes')
@UseInterceptors(FailsOnceOutsideInterceptor)
class HostNotesController {
  static runs = 0;

  @Post()
  create(): { object: string; run: number } {
    HostNotesController.runs += 1;
    return { object: 'note', run: HostNotesController.runs };
  }
}

/** The module's clock, moved on by hand. */
class MovableClock extends Clock {
  offsetMs = 0;

  override now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}

const ENDPOINTS = '/v1/webhook_endpoints';
const receivers = new OpenReceivers();

describe('Idempotency-Key on POST (as Stripe)', () => {
  let host: TestHost;
  let key: string;
  const clock = new MovableClock();

  beforeAll(async () => {
    host = await createTestHost({
      controllers: [
        HostOrdersController,
        HostCandidatesController,
        HostExportsController,
        HostQuotesController,
        HostImportsController,
        HostNotesController,
      ],
      clock,
    });
    key = await host.createKey('acct_idem', 'test');
  });
  afterEach(async () => {
    clock.offsetMs = 0;
    await receivers.closeAll();
  });
  afterAll(() => host.close());

  function post(path: string, body: object | undefined, idempotencyKey?: string, apiKey = key): request.Test {
    const req = request(host.app.getHttpServer()).post(path).set('Authorization', `Bearer ${apiKey}`);
    if (idempotencyKey !== undefined) req.set('Idempotency-Key', idempotencyKey);
    return body === undefined ? req : req.send(body);
  }

  const endpointCount = (): Promise<number> =>
    host.app.get(DataSource).getRepository(WebhookEndpointEntity).count();
  const fresh = (): string => `idem_${Math.random().toString(36).slice(2)}`;
  const create = (url = 'http://127.0.0.1:9/hook'): object => ({ url, enabled_events: ['*'] });

  it('answers a retried create with the first answer, and creates one endpoint', async () => {
    const idem = fresh();
    const before = await endpointCount();
    const first = await post(ENDPOINTS, create(), idem);
    const retry = await post(ENDPOINTS, create(), idem);

    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(typeof first.body.secret).toBe('string');
    expect(await endpointCount()).toBe(before + 1);
  });

  it('matches the same parameters sent in another order', async () => {
    const idem = fresh();
    const first = await post(ENDPOINTS, { url: 'http://127.0.0.1:9/a', enabled_events: ['*'] }, idem);
    const retry = await post(ENDPOINTS, { enabled_events: ['*'], url: 'http://127.0.0.1:9/a' }, idem);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
  });

  it('matches a retry spelled as the routes read it: a trailing slash, an empty object for no body', async () => {
    const idem = fresh();
    const first = await post(ENDPOINTS, create('http://127.0.0.1:9/slash'), idem);
    const slashed = await post(`${ENDPOINTS}/`, create('http://127.0.0.1:9/slash'), idem);
    expect(slashed.headers['idempotent-replayed']).toBe('true');
    expect(slashed.body.id).toBe(first.body.id);

    const rotate = `${ENDPOINTS}/${first.body.id as string}/rotate_secret`;
    const other = fresh();
    const rotated = await post(rotate, undefined, other);
    const again = await post(rotate, {}, other);
    expect(rotated.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.secret).toBe(rotated.body.secret);
  });

  it('refuses a key reused with other parameters or on another route, and runs nothing', async () => {
    const idem = fresh();
    const first = await post(ENDPOINTS, create('http://127.0.0.1:9/first'), idem);
    expect(first.status).toBe(201);
    const before = await endpointCount();

    const otherBody = await post(ENDPOINTS, create('http://127.0.0.1:9/other'), idem);
    expectParameterInvalid(otherBody, 'Idempotency-Key');
    expect(otherBody.body.error.message).toMatch(/same parameters/);
    const otherRoute = await post(`${ENDPOINTS}/${first.body.id as string}/rotate_secret`, undefined, idem);
    expectParameterInvalid(otherRoute, 'Idempotency-Key');
    expect(await endpointCount()).toBe(before);
    const retrieved = await request(host.app.getHttpServer())
      .get(`${ENDPOINTS}/${first.body.id as string}`)
      .set('Authorization', `Bearer ${key}`);
    expect(retrieved.body.updated_at).toBe(first.body.updated_at);
  });

  it('refuses a repeated Idempotency-Key header, which Node would join into one key, and runs nothing', async () => {
    const [a1, a2] = [fresh(), fresh()];
    const before = await endpointCount();
    const repeated = await request(host.app.getHttpServer())
      .post(ENDPOINTS)
      .set('Authorization', `Bearer ${key}`)
      // Node sends an array's values as repeated header lines.
      .set({ 'Idempotency-Key': [a1, a2] })
      .send(create('http://127.0.0.1:9/repeated'));
    expectParameterInvalid(repeated, 'Idempotency-Key');
    expect(repeated.body.error.message).toBe('Idempotency-Key must be given once.');
    expect(await endpointCount()).toBe(before);

    // The joined text sent as one header is one key like any other.
    const joined = `${a1}, ${a2}`;
    const first = await post(ENDPOINTS, create('http://127.0.0.1:9/joined'), joined);
    const retry = await post(ENDPOINTS, create('http://127.0.0.1:9/joined'), joined);
    expect(first.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await endpointCount()).toBe(before + 1);
  });

  it('keeps nothing of a request that failed: its retry runs afresh', async () => {
    const idem = fresh();
    const refused = await post(ENDPOINTS, { enabled_events: ['*'] }, idem);
    expect(refused.status).toBe(400);
    const retry = await post(ENDPOINTS, create(), idem);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it("never answers another API key of the account what one key was answered: an endpoint's secret stays with it", async () => {
    const idem = fresh();
    const colleague = await host.createKey('acct_idem', 'test');
    const mine = await post(ENDPOINTS, create(), idem);
    expect(mine.status).toBe(201);
    const before = await endpointCount();

    const theirs = await post(ENDPOINTS, create(), idem, colleague);
    expectParameterInvalid(theirs, 'Idempotency-Key');
    expect(theirs.text).not.toContain(mine.body.secret as string);
    expect(await endpointCount()).toBe(before);
    // The key that made it still gets its answer again.
    const retry = await post(ENDPOINTS, create(), idem);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(mine.body);
  });

  it('scopes keys to the account and mode', async () => {
    const idem = fresh();
    const other = await host.createKey('acct_idem_other', 'test');
    const live = await host.createKey('acct_idem', 'live');
    const mine = await post(ENDPOINTS, create(), idem);
    const theirs = await post(ENDPOINTS, create(), idem, other);
    const liveOne = await post(
      ENDPOINTS,
      { url: 'https://example.com/hook', enabled_events: ['*'] },
      idem,
      live,
    );
    expect([mine.status, theirs.status, liveOne.status]).toEqual([201, 201, 201]);
    expect(new Set([mine.body.id, theirs.body.id, liveOne.body.id]).size).toBe(3);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    // Each mode's retry finds its own mode's answer, not the other's (another body: a 400).
    const liveRetry = await post(
      ENDPOINTS,
      { url: 'https://example.com/hook', enabled_events: ['*'] },
      idem,
      live,
    );
    expect(liveRetry.status).toBe(201);
    expect(liveRetry.headers['idempotent-replayed']).toBe('true');
    expect(liveRetry.body.id).toBe(liveOne.body.id);
    const testRetry = await post(ENDPOINTS, create(), idem);
    expect(testRetry.headers['idempotent-replayed']).toBe('true');
    expect(testRetry.body.id).toBe(mine.body.id);
  });

  it('keeps nothing when a layer around the handler fails its answer: the retry runs afresh', async () => {
    const idem = fresh();
    const runsBefore = HostNotesController.runs;
    FailsOnceOutsideInterceptor.armed = true;
    const failed = await post('/v1/host_notes', undefined, idem);
    const retry = await post('/v1/host_notes', undefined, idem);
    const again = await post('/v1/host_notes', undefined, idem);

    expect(failed.status).toBe(500);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.body).toEqual({ object: 'note', run: runsBefore + 2 });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(retry.text);
  });

  it("runs a host's own POST once: a concurrent retry gets 409, a later one the first answer", async () => {
    const idem = fresh();
    const runsBefore = HostOrdersController.runs;
    const [a, b] = await Promise.all([
      post('/v1/host_orders', { item: 'book' }, idem),
      sleep(100).then(() => post('/v1/host_orders', { item: 'book' }, idem)),
    ]);
    expect(a.status).toBe(201);
    expect(b.status).toBe(409);
    expect(b.body).toEqual(errorEnvelope('invalid_request_error', 'conflict'));
    const later = await post('/v1/host_orders', { item: 'book' }, idem);
    expect(later.status).toBe(201);
    expect(later.body).toEqual(a.body);
    expect(HostOrdersController.runs).toBe(runsBefore + 1);
  });

  it("answers a retry with the bytes first sent, not the handler's value shaped again", async () => {
    const idem = fresh();
    const runsBefore = HostCandidatesController.runs;
    const first = await post('/v1/host_candidates', undefined, idem);
    const retry = await post('/v1/host_candidates', undefined, idem);

    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: 'cand_1', object: 'candidate', display: 'Cand One' });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['content-type']).toBe(first.headers['content-type']);
    expect(retry.text).toBe(first.text);
    expect(HostCandidatesController.runs).toBe(runsBefore + 1);
  });

  it('lets the key go after an answer streamed out: a retry runs again', async () => {
    const idem = fresh();
    const runsBefore = HostExportsController.runs;
    const first = await post('/v1/host_exports', undefined, idem);
    const retry = await post('/v1/host_exports', undefined, idem);

    expect([first.status, retry.status]).toEqual([201, 201]);
    expect(first.headers['content-type']).toMatch(/^text\/csv/);
    expect(first.text).toBe(`id,run\nexp_1,${runsBefore + 1}\n`);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.headers['content-type']).toMatch(/^text\/csv/);
    expect(retry.text).toBe(`id,run\nexp_1,${runsBefore + 2}\n`);
  });

  it('tells requests apart by their query: names in any order, repeated ones kept', async () => {
    const idem = fresh();
    const runsBefore = HostQuotesController.runs;
    const first = await post('/v1/host_quotes?color=red&size=s', undefined, idem);
    const reordered = await post('/v1/host_quotes?size=s&color=red', undefined, idem);
    expect(first.status).toBe(201);
    expect(reordered.headers['idempotent-replayed']).toBe('true');
    expect(reordered.body).toEqual(first.body);

    const otherValue = await post('/v1/host_quotes?color=blue&size=s', undefined, idem);
    expectParameterInvalid(otherValue, 'Idempotency-Key');
    const repeated = await post('/v1/host_quotes?color=red&size=s&color=red', undefined, idem);
    expectParameterInvalid(repeated, 'Idempotency-Key');
    const none = await post('/v1/host_quotes', undefined, idem);
    expectParameterInvalid(none, 'Idempotency-Key');
    expect(HostQuotesController.runs).toBe(runsBefore + 1);
  });

  it('refuses a key on an upload the route reads itself, running nothing', async () => {
    const runsBefore = HostImportsController.runs;
    const upload = (idempotencyKey?: string): request.Test =>
      post('/v1/host_imports', undefined, idempotencyKey).attach(
        'file',
        Buffer.from('a,b\n1,2\n'),
        'first.csv',
      );

    const keyed = await upload(fresh());
    expectParameterInvalid(keyed, 'Idempotency-Key');
    expect(keyed.body.error.message).toMatch(/multipart\/form-data/);
    expect(HostImportsController.runs).toBe(runsBefore);
    const plain = await upload();
    expect(plain.status).toBe(201);
    expect(plain.body).toEqual({ object: 'import', name: 'first.csv' });
  });

  it('leaves alone a handler that writes its response itself', async () => {
    const idem = fresh();
    const runsBefore = HostOrdersController.runs;
    const first = await post('/v1/host_orders/by_hand', undefined, idem);
    const second = await post('/v1/host_orders/by_hand', undefined, idem);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(HostOrdersController.runs).toBe(runsBefore + 2);
  });

  it('sends one test event when a test request is retried', async () => {
    const receiver = await receivers.start();
    const endpoint = await post(ENDPOINTS, create(receiver.url));
    const idem = fresh();
    const first = await post(`${ENDPOINTS}/${endpoint.body.id as string}/test`, undefined, idem);
    const retry = await post(`${ENDPOINTS}/${endpoint.body.id as string}/test`, undefined, idem);
    expect(first.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    await receiver.waitFor(1);
    await sleep(500);
    expect(receiver.requests).toHaveLength(1);
  });

  it('forgets a key after a day', async () => {
    const idem = fresh();
    const first = await post(ENDPOINTS, create(), idem);
    clock.offsetMs = IDEMPOTENCY_KEY_TTL_MS + 1000;
    const dayLater = await post(ENDPOINTS, create(), idem);
    expect(dayLater.status).toBe(201);
    expect(dayLater.headers['idempotent-replayed']).toBeUndefined();
    expect(dayLater.body.id).not.toBe(first.body.id);
  });

  it('deletes the keys past their day, and only those', async () => {
    const keys = (): Promise<{ key: string }[]> =>
      host.app.get(DataSource).query('SELECT idempotency_key AS key FROM interview_idempotency_keys');
    const old = fresh();
    await post(ENDPOINTS, create(), old);
    clock.offsetMs = IDEMPOTENCY_KEY_TTL_MS / 2;
    const recent = fresh();
    await post(ENDPOINTS, create(), recent);
    clock.offsetMs = IDEMPOTENCY_KEY_TTL_MS + 1000;
    const before = await keys();
    const purged = await host.app.get(IdempotencyStore).purge();
    const left = (await keys()).map(({ key }) => key);
    expect(purged).toBe(before.length - left.length);
    expect(left).not.toContain(old);
    expect(left).toContain(recent);
  });

  it('lets a retry run in place of a run that died without answering', async () => {
    const idem = fresh();
    // A process that died mid-run leaves its key held and unanswered.
    const postgres = host.db.kind === 'postgres';
    const now = new Date();
    await host.app.get(DataSource).query(
      `INSERT INTO interview_idempotency_keys (account_id, livemode, idempotency_key, fingerprint, token, created_at)
         VALUES ('acct_idem', ${postgres ? 'false' : '0'}, '${idem}', ${postgres ? '$1' : '?'}, 't', ${postgres ? '$2' : '?'})`,
      [
        requestFingerprint((await host.keys.authenticate(key))!.id, {
          method: 'POST',
          originalUrl: ENDPOINTS,
          query: {},
          body: create(),
        }),
        postgres ? now : now.toISOString().replace('T', ' ').replace('Z', ''),
      ],
    );
    const held = await post(ENDPOINTS, create(), idem);
    expect(held.status).toBe(409);
    clock.offsetMs = IDEMPOTENT_RUN_LEASE_MS + 1000;
    const taken = await post(ENDPOINTS, create(), idem);
    expect(taken.status).toBe(201);
    clock.offsetMs = 0;
    const replayed = await post(ENDPOINTS, create(), idem);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.id).toBe(taken.body.id);
  });

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['holding a control character', 'a\tb'],
  ])('refuses a key %s, creating nothing', async (_what, idem) => {
    const before = await endpointCount();
    const res: Response = await post(ENDPOINTS, create(), idem);
    expectParameterInvalid(res, 'Idempotency-Key');
    expect(await endpointCount()).toBe(before);
  });

  it('leaves requests other than POST alone', async () => {
    const res = await request(host.app.getHttpServer())
      .get(ENDPOINTS)
      .set('Authorization', `Bearer ${key}`)
      .set('Idempotency-Key', '');
    expect(res.status).toBe(200);
  });
});
