import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { expectParameterInvalid, expectResourceMissing } from './support/api-error.js';
import { DB_KIND } from './support/database.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { SCORE_CARDS, ScoreCardEntity } from './support/score-card.entity.js';
import { startTypeScriptChild } from './support/typescript-child.js';

const REVIEWERS = [randomUUID(), randomUUID()];
const REVIEWED = [new Date('2026-03-01T10:00:00.123Z'), new Date('2026-03-02T11:30:00.000Z')];
const REVIEWED_ON = ['2026-03-01', '2026-03-02'];

describe('host resources whose columns are not text: filter values and ids must fit their column', () => {
  let host: TestHost;
  let key: string;
  let cards: ScoreCardEntity[];

  beforeAll(async () => {
    host = await createTestHost({ entities: [ScoreCardEntity], resources: [SCORE_CARDS] });
    key = await host.createKey('acct_cards', 'test', ['results:read']);
    const repository = host.app.get(DataSource).getRepository(ScoreCardEntity);
    cards = [
      {
        score: 87,
        archived: false,
        rating: '4.5',
        total: '12.5',
        weight: 1.5,
        ratio: 0.25,
        stage: 'final' as const,
      },
      { score: 42, archived: true, rating: '3.0', total: '7', weight: -2, ratio: 8, stage: 'draft' as const },
    ].map((fields, i) =>
      repository.create({
        ...fields,
        id: randomUUID(),
        accountId: 'acct_cards',
        livemode: false,
        reviewedAt: REVIEWED[i],
        reviewedOn: REVIEWED_ON[i],
        reviewerId: REVIEWERS[i],
        startsAt: '09:30:00',
        notes: null,
        createdAt: new Date(Date.UTC(2026, 2, 1 + i)),
      }),
    );
    await repository.insert(cards);
  });
  afterAll(() => host.close());

  const get = (path: string) =>
    request(host.app.getHttpServer()).get(`/v1/score_cards${path}`).set('Authorization', `Bearer ${key}`);
  const listed = async (query: string): Promise<number[]> => {
    const res = await get(`?${query}`).expect(200);
    return (res.body.data as { score: number }[]).map((card) => card.score);
  };

  it.each([
    ['reviewer_id=not-a-uuid', 'reviewer_id'],
    ['score=abc', 'score'],
    ['score=1.5', 'score'],
    // Beyond a 32-bit integer column: PostgreSQL would fail the statement rather than find nothing.
    ['score=99999999999', 'score'],
    ['archived=maybe', 'archived'],
    ['archived=1', 'archived'],
    ['rating=high', 'rating'],
    // Beyond what the column or its type holds: PostgreSQL would fail the statement (500).
    ['rating=1000', 'rating'],
    ['rating=-1e3', 'rating'],
    ['rating=1e200000', 'rating'],
    ['total=1e200000', 'total'],
    ['total=1e-20000', 'total'],
    ['total=0e9999999999', 'total'],
    ['weight=1e400', 'weight'],
    ['weight=-1e400', 'weight'],
    ['weight=1e-400', 'weight'],
    ['weight=Infinity', 'weight'],
    ['weight=NaN', 'weight'],
    ['ratio=1e39', 'ratio'],
    ['ratio=1e-50', 'ratio'],
    ['stage=published', 'stage'],
    ['reviewed_at=yesterday', 'reviewed_at'],
    ['reviewed_at=2026-02-30T10:00:00Z', 'reviewed_at'],
    ['reviewed_on=2026-02-30', 'reviewed_on'],
    ['reviewed_on=2026-3-1', 'reviewed_on'],
    // A timestamp's day depends on a time zone.
    ['reviewed_on=2026-03-01T00:00:00Z', 'reviewed_on'],
    // PostgreSQL has no year 0: it would fail the statement.
    ['reviewed_on=0000-01-01', 'reviewed_on'],
  ])('refuses %s with 400 naming the filter', async (query, param) => {
    expectParameterInvalid(await get(`?${query}`), param);
  });

  it('says what the filter takes', async () => {
    const res = await get('?stage=published');
    expect(res.body.error.message).toBe('stage must be one of draft, final.');
    expect((await get('?score=abc')).body.error.message).toBe('score must be an integer.');
    expect((await get('?reviewed_on=tomorrow')).body.error.message).toBe(
      'reviewed_on must be a date, e.g. 2026-11-21.',
    );
  });

  it.each([
    [`reviewer_id=${REVIEWERS[1]}`, [42]],
    // A uuid in upper case is the same uuid, on SQLite's text as on PostgreSQL's uuid.
    [`reviewer_id=${REVIEWERS[0].toUpperCase()}`, [87]],
    ['score=87', [87]],
    ['score=042', [42]],
    ['archived=true', [42]],
    ['archived=false', [87]],
    ['rating=4.5', [87]],
    ['rating=04.50', [87]],
    // Values the column cannot hold exactly but the database reads: they match nothing.
    ['rating=999.96', []],
    ['rating=4.55', []],
    ['total=12.5', [87]],
    ['total=7e0', [42]],
    ['total=1e-16383', []],
    ['weight=1.5', [87]],
    ['weight=-2', [42]],
    ['weight=5e-324', []],
    ['ratio=0.25', [87]],
    ['ratio=8', [42]],
    ['ratio=1e-40', []],
    ['stage=draft', [42]],
    [`reviewed_at=${encodeURIComponent(REVIEWED[0].toISOString())}`, [87]],
    ['reviewed_on=2026-03-01', [87]],
    ['reviewed_on=2026-03-02', [42]],
    ['reviewed_on=0001-01-01', []],
    ['score=-7', []],
  ])('lists the rows that match %s', async (query, scores) => {
    expect(await listed(query)).toEqual(scores);
  });

  it('matches a date on that day in a host process west of UTC', async () => {
    // In a process on New York time, a day bound as a Date reached PostgreSQL as the evening before.
    const { child, message } = await startTypeScriptChild<{ url: string }>(
      './score-cards-process.ts',
      [host.db.kind, host.db.name],
      { ...process.env, TZ: 'America/New_York' },
    );
    try {
      const listedThere = async (query: string): Promise<number[]> => {
        const res = await request(message.url)
          .get(`/v1/score_cards?${query}`)
          .set('Authorization', `Bearer ${key}`)
          .expect(200);
        return (res.body.data as { score: number }[]).map((card) => card.score);
      };
      expect(await listedThere('reviewed_on=2026-03-01')).toEqual([87]);
      expect(await listedThere('reviewed_on=2026-03-02')).toEqual([42]);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    }
  });

  it('matches a timestamp at a whole second however the database text stores it, through its index or not', async () => {
    const account = 'acct_cards_seconds';
    const repository = host.app.get(DataSource).getRepository(ScoreCardEntity);
    /** A card created on day `day` of March 2026. */
    const card = (score: number, day: number): Omit<ScoreCardEntity, 'reviewedAt'> => ({
      id: randomUUID(),
      accountId: account,
      livemode: false,
      reviewerId: randomUUID(),
      score,
      archived: false,
      rating: '1.0',
      total: '1',
      weight: 1,
      ratio: 1,
      startsAt: '09:30:00',
      stage: 'final',
      reviewedOn: null,
      notes: null,
      externalRef: null,
      createdAt: new Date(Date.UTC(2026, 2, day)),
    });
    // Written by TypeORM (SQLite text `2026-03-02 11:30:00.000`), and half a second later.
    const [atSecond, wholeSecond, later] = [card(1, 3), card(2, 2), card(3, 1)];
    await repository.insert([
      { ...atSecond, reviewedAt: REVIEWED[1] },
      { ...wholeSecond, reviewedAt: REVIEWED[1] },
      { ...later, reviewedAt: new Date(REVIEWED[1].getTime() + 500) },
    ]);
    // Rewritten to the whole second by the database (SQLite text `2026-03-02 11:30:00`), as a column
    // default or another writer than TypeORM stores it.
    await repository
      .createQueryBuilder()
      .update()
      .set({
        reviewedAt: () =>
          DB_KIND === 'postgres' ? "date_trunc('second', reviewed_at)" : 'datetime(reviewed_at)',
      })
      .where('id = :id', { id: wholeSecond.id })
      .execute();
    const seconds = await host.createKey(account, 'test', ['results:read']);
    const listedIn = async (query: string): Promise<number[]> => {
      const res = await request(host.app.getHttpServer())
        .get(`/v1/score_cards?${query}`)
        .set('Authorization', `Bearer ${seconds}`)
        .expect(200);
      return (res.body.data as { score: number }[]).map((found) => found.score);
    };
    for (const at of ['2026-03-02T11:30:00Z', '2026-03-02T11:30:00.000Z']) {
      expect(await listedIn(`reviewed_at=${at}`)).toEqual([1, 2]);
      // With the stage read through its index, the time is read within the window.
      expect(await listedIn(`stage=final&reviewed_at=${at}`)).toEqual([1, 2]);
    }
    expect(await listedIn('reviewed_at=2026-03-02T11:30:00.500Z')).toEqual([3]);
  });

  it('answers 404 for an id its column cannot hold, and finds a real one', async () => {
    expectResourceMissing(await get('/not-a-uuid'));
    expectResourceMissing(await get(`/${randomUUID()}`));
    const res = await get(`/${cards[0].id.toUpperCase()}`).expect(200);
    expect(res.body).toMatchObject({ id: cards[0].id, object: 'score_card', score: 87 });
    // As the README says: node-postgres keeps a decimal's every digit in a string.
    expect(res.body.rating).toBe(DB_KIND === 'postgres' ? '4.5' : 4.5);
  });
});
