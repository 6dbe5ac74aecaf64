import { randomUUID } from 'node:crypto';
import { Transform } from 'class-transformer';
import { Column, DataSource, Entity, Index, PrimaryColumn } from 'typeorm';
import { createInterviewApiDocument, type ResourceDefinition } from '../lib/index.js';
import { apiClient, type ApiClient } from './support/api-client.js';
import { CANDIDATES, CandidateEntity } from './support/candidate.entity.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { InterviewReviewEntity, REVIEWS } from './support/interview-review.entity.js';
import { ResponseChecker } from './support/openapi-responses.js';
import { SCORE_CARDS, ScoreCardEntity } from './support/score-card.entity.js';

/** A host entity with a column never loaded and a transform that only a real row's value survives. */
@Entity({ name: 'host_badges' })
@Index(['accountId', 'livemode', 'createdAt', 'id'])
class BadgeEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 255 })
  accountId!: string;

  @Column({ type: 'boolean' })
  livemode!: boolean;

  @Column({ type: 'varchar', length: 64, select: false })
  token!: string;

  @Transform(({ value }: { value: Date }) => value.toISOString())
  @Column({ name: 'awarded_at' })
  awardedAt!: Date;

  @Column({ name: 'created_at' })
  createdAt!: Date;
}

const BADGES: ResourceDefinition<BadgeEntity> = {
  path: 'badges',
  entity: BadgeEntity,
  object: 'badge',
  scope: 'results:read',
};

/** Host resources as their entities' columns describe them, checked against their live answers. */
describe('the OpenAPI document of host resources', () => {
  const createdAt = new Date('2026-04-01T09:00:00.000Z');
  let host: TestHost;
  let client: ApiClient;
  let checker: ResponseChecker;
  let schemas: Record<string, { properties: Record<string, unknown>; required: string[] }>;

  beforeAll(async () => {
    host = await createTestHost({
      entities: [ScoreCardEntity, InterviewReviewEntity, CandidateEntity, BadgeEntity],
      resources: [SCORE_CARDS, REVIEWS, CANDIDATES, BADGES],
    });
    const dataSource = host.app.get(DataSource);
    const owner = { accountId: 'acct_resources', livemode: false, createdAt };
    await dataSource.getRepository(ScoreCardEntity).insert({
      ...owner,
      id: randomUUID(),
      reviewerId: randomUUID(),
      score: 87,
      archived: false,
      rating: '4.5',
      total: '12.5',
      weight: 1.5,
      ratio: 0.25,
      startsAt: '09:30:00',
      stage: 'final',
      reviewedAt: createdAt,
      reviewedOn: null,
      notes: ['calm'],
      externalRef: null,
    });
    await dataSource.getRepository(InterviewReviewEntity).insert({
      ...owner,
      id: 'rev_1',
      verdict: 'hire',
      interviewerNotes: 'private',
      salaryBand: 'B2',
      reviewerName: 'Ada',
    });
    await dataSource.getRepository(CandidateEntity).insert({
      ...owner,
      id: 'cand_1',
      name: 'Grace',
      stage: 'onsite',
      email: 'grace@example.com',
    });
    await dataSource
      .getRepository(BadgeEntity)
      .insert({ ...owner, id: 'bdg_1', token: 'secret', awardedAt: createdAt });
    client = apiClient(host, await host.createKey('acct_resources', 'test', ['results:read']));
    const document = createInterviewApiDocument(host.app);
    checker = new ResponseChecker(document);
    schemas = Object.fromEntries(
      ['score_cards', 'reviews', 'candidates', 'badges'].map((path) => {
        const responses = document.paths[`/v1/${path}/{id}`].get!.responses as Record<
          string,
          { content: Record<string, { schema: { properties: Record<string, unknown>; required: string[] } }> }
        >;
        return [path, responses['200'].content['application/json'].schema];
      }),
    );
  });
  afterAll(() => host.close());

  it.each(['score_cards', 'reviews', 'candidates', 'badges'])(
    'answers /v1/%s as its schema describes it',
    async (path) => {
      const list = await client.get(`/v1/${path}`);
      expect(checker.problem(`GET /v1/${path}`, list)).toBeNull();
      expect(list.body.data).toHaveLength(1);
      const retrieved = await client.get(`/v1/${path}/${list.body.data[0].id}`);
      expect(checker.problem(`GET /v1/${path}/{id}`, retrieved)).toBeNull();
      // Every field answered is described, and every field described is answered.
      expect(Object.keys(retrieved.body).sort()).toEqual(Object.keys(schemas[path].properties).sort());
      expect([...schemas[path].required].sort()).toEqual(Object.keys(retrieved.body).sort());
    },
  );

  it('describes the column types as the drivers answer them', () => {
    expect(schemas.score_cards.properties).toMatchObject({
      id: { type: 'string', format: 'uuid' },
      score: { type: 'integer' },
      archived: { type: 'boolean' },
      rating: { type: ['number', 'string'] },
      weight: { type: 'number' },
      stage: { enum: ['draft', 'final'] },
      reviewed_at: { type: 'string', format: 'date-time' },
      reviewed_on: { type: ['string', 'null'], format: 'date' },
      external_ref: { type: ['string', 'null'] },
      notes: {},
    });
  });
});
