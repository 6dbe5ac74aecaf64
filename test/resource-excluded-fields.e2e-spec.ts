import { DataSource } from 'typeorm';
import { apiClient, type ApiClient } from './support/api-client.js';
import { CANDIDATES, CandidateEntity } from './support/candidate.entity.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { InterviewReviewEntity, REVIEWS } from './support/interview-review.entity.js';

/** What class-transformer leaves out of an entity's plain object, the default view leaves out too. */
describe('host resources: fields a host keeps private with class-transformer', () => {
  const createdAt = new Date('2026-04-01T09:00:00.000Z');
  let host: TestHost;
  let client: ApiClient;

  beforeAll(async () => {
    host = await createTestHost({
      entities: [InterviewReviewEntity, CandidateEntity],
      resources: [REVIEWS, CANDIDATES],
    });
    const dataSource = host.app.get(DataSource);
    await dataSource.getRepository(InterviewReviewEntity).insert({
      id: 'rev_1',
      accountId: 'acct_private',
      livemode: false,
      verdict: 'hire',
      interviewerNotes: 'nervous at first',
      salaryBand: 'B2',
      reviewerName: 'Ada',
      createdAt,
    });
    await dataSource.getRepository(CandidateEntity).insert({
      id: 'cand_1',
      accountId: 'acct_private',
      livemode: false,
      name: 'Grace',
      stage: 'onsite',
      email: 'grace@example.com',
      createdAt,
    });
    client = apiClient(host, await host.createKey('acct_private', 'test', ['results:read']));
  });
  afterAll(() => host.close());

  const review = {
    id: 'rev_1',
    object: 'review',
    account_id: 'acct_private',
    livemode: false,
    verdict: 'hire',
    reviewer_name: 'Ada',
    created_at: createdAt.toISOString(),
  };

  it('leaves @Exclude()d columns out of the list and the retrieve', async () => {
    const list = await client.get('/v1/reviews');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([review]);
    const retrieved = await client.get('/v1/reviews/rev_1');
    expect(retrieved.status).toBe(200);
    expect(retrieved.body).toEqual(review);
  });

  it('serves only the @Expose()d columns of a class-level @Exclude(), with the id and object', async () => {
    const candidate = { id: 'cand_1', object: 'candidate', name: 'Grace', stage: 'onsite' };
    const list = await client.get('/v1/candidates');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([candidate]);
    const retrieved = await client.get('/v1/candidates/cand_1');
    expect(retrieved.status).toBe(200);
    expect(retrieved.body).toEqual(candidate);
  });
});
