import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { UNINDEXED_FILTER_WINDOW } from '../lib/interview-api.tuning.js';
import { apiClient, walkPages } from './support/api-client.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { SCORE_CARDS, ScoreCardEntity } from './support/score-card.entity.js';
import { insertSessions, type SessionSeed } from './support/sessions.js';

/**
 * A filter on a host resource reads at most UNINDEXED_FILTER_WINDOW rows a page, unless the entity
 * declares the index that lists one value in page order: (accountId, livemode, <filter>, createdAt, id).
 */
describe('host resource filters on long lists', () => {
  const total = UNINDEXED_FILTER_WINDOW + 5;
  /**
   * Newest first, 1-based: matches at both ends of the first window of a walk, and just after it
   * (a window one row short, or one row long, misses or moves one).
   */
  const matchRanks = [1, UNINDEXED_FILTER_WINDOW, UNINDEXED_FILTER_WINDOW + 1, UNINDEXED_FILTER_WINDOW + 3];
  const createdAt = (rank: number): Date => new Date(Date.UTC(2026, 0, 1) + (total - rank) * 1000);
  let host: TestHost;

  beforeAll(async () => {
    host = await createTestHost({ entities: [ScoreCardEntity], resources: [SCORE_CARDS] });
  });
  afterAll(() => host.close());

  it('read a filter without its index within a window: pages end short, a walk finds each match once', async () => {
    const sessionsHost = await createTestHost();
    try {
      const seeds: SessionSeed[] = Array.from({ length: total }, (_, i) => ({
        accountId: 'acct_long',
        livemode: false,
        createdAt: createdAt(i + 1),
        status: matchRanks.includes(i + 1) ? 'cancelled' : 'completed',
      }));
      const rows = await insertSessions(sessionsHost, seeds);
      const client = apiClient(
        sessionsHost,
        await sessionsHost.createKey('acct_long', 'test', ['results:read']),
      );
      const pages = await walkPages<{ id: string }>(client, '/v1/sessions', {
        status: 'cancelled',
        limit: 10,
      });
      expect(pages.map((page) => page.data.length)).toEqual([2, 2]);
      expect(pages.flatMap((page) => page.data.map((session) => session.id))).toEqual(
        matchRanks.map((rank) => rows[rank - 1].id),
      );
    } finally {
      await sessionsHost.close();
    }
  });

  it('read a filter through its index in full pages, however far apart the matches are', async () => {
    const repository = host.app.get(DataSource).getRepository(ScoreCardEntity);
    const cards = Array.from({ length: total }, (_, i) =>
      repository.create({
        id: randomUUID(),
        accountId: 'acct_long',
        livemode: false,
        reviewerId: randomUUID(),
        score: matchRanks.includes(i + 1) ? 95 : 50,
        archived: false,
        rating: '3.0',
        total: '1',
        weight: 1,
        ratio: 1,
        startsAt: '09:30:00',
        stage: matchRanks.includes(i + 1) ? 'final' : 'draft',
        reviewedAt: createdAt(i + 1),
        notes: null,
        externalRef: null,
        createdAt: createdAt(i + 1),
      }),
    );
    for (let start = 0; start < cards.length; start += 50)
      await repository.insert(cards.slice(start, start + 50));
    const client = apiClient(host, await host.createKey('acct_long', 'test', ['results:read']));
    const pages = await walkPages<{ id: string }>(client, '/v1/score_cards', { stage: 'final', limit: 10 });
    expect(pages.map((page) => page.data.length)).toEqual([matchRanks.length]);
    expect(pages[0].data.map((card) => card.id)).toEqual(matchRanks.map((rank) => cards[rank - 1].id));

    // With a second filter, only one is read through an index: the other within the window.
    const both = await walkPages<{ id: string }>(client, '/v1/score_cards', {
      stage: 'final',
      score: 95,
      limit: 10,
    });
    expect(both.flatMap((page) => page.data.map((card) => card.id))).toEqual(
      matchRanks.map((rank) => cards[rank - 1].id),
    );

    // A partial index lists some values only: the score filter alone is read within the window.
    const byScore = await walkPages<{ id: string }>(client, '/v1/score_cards', { score: 95, limit: 10 });
    expect(byScore.map((page) => page.data.length)).toEqual([2, 2]);
  });
});
