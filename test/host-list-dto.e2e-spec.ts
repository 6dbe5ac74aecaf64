import { Get, Query, ValidationPipe } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { DataSource } from 'typeorm';
import {
  ApiV1Controller,
  type AuthenticatedApiKey,
  CurrentApiKey,
  type ListEnvelope,
  Paginator,
  parseListParams,
  RequireScopes,
} from '../lib/index.js';
import { type ApiClient, apiClient, walkPages } from './support/api-client.js';
import { expectParameterInvalid } from './support/api-error.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { SessionEntity } from './support/session.entity.js';
import { insertSessions } from './support/sessions.js';

/** A host's list query, typed as its global transforming pipe hands it over. */
class SessionListQuery {
  @IsOptional()
  @Type(() => Number)
  limit?: number;

  @IsOptional()
  @IsString()
  cursor?: string;

  @IsOptional()
  @Type(() => Date)
  created_gte?: Date;

  @IsOptional()
  @IsIn(['scheduled', 'completed'])
  status?: string;
}

interface SessionItem {
  id: string;
  status: string;
}

/** A host list of its own, paged by the module's paginator. */
@ApiV1Controller('host_sessions')
@RequireScopes('results:read')
class HostSessionsController {
  constructor(
    private readonly paginator: Paginator,
    private readonly dataSource: DataSource,
  ) {}

  @Get()
  list(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Query() query: SessionListQuery,
  ): Promise<ListEnvelope<SessionItem>> {
    const params = parseListParams(query, ['status']);
    const sessions = this.dataSource.getRepository(SessionEntity).createQueryBuilder('session');
    if (query.status !== undefined) sessions.andWhere('session.status = :status', { status: query.status });
    return this.paginator.page({ list: 'host_sessions', query: sessions, params, scope: key }, (row) => ({
      id: row.id,
      status: row.status,
    }));
  }
}

const PATH = '/v1/host_sessions';

describe('a host list whose DTO a global ValidationPipe({ transform: true }) has transformed', () => {
  let host: TestHost;
  let client: ApiClient;
  /** The account's sessions, newest first. */
  let newestFirst: SessionEntity[];

  beforeAll(async () => {
    host = await createTestHost({
      controllers: [HostSessionsController],
      configure: (app) => app.useGlobalPipes(new ValidationPipe({ transform: true })),
    });
    client = apiClient(host, await host.createKey('acct_dto', 'test', ['results:read']));
    const seeded = await insertSessions(
      host,
      Array.from({ length: 7 }, (_, index) => ({
        accountId: 'acct_dto',
        livemode: false,
        createdAt: new Date(Date.UTC(2026, 0, 1 + index)),
        status: index % 2 === 0 ? 'completed' : 'scheduled',
      })),
    );
    newestFirst = [...seeded].reverse();
  });
  afterAll(async () => {
    await host?.close();
  });

  it('answers limit=1 with one item and a cursor', async () => {
    const res = await client.get(PATH, { limit: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'list',
      data: [{ id: newestFirst[0].id, status: newestFirst[0].status }],
      has_more: true,
      next_cursor: expect.any(String),
    });
  });

  it('walks the list with next_cursor, every item once, newest first', async () => {
    const pages = await walkPages<SessionItem>(client, PATH, { limit: 2 });
    expect(pages.flatMap((page) => page.data.map((item) => item.id))).toEqual(newestFirst.map((s) => s.id));
  });

  it('walks with the host filter and a created_gte Date, the cursor bound to both', async () => {
    const since = newestFirst[4].createdAt.toISOString();
    const query = { limit: 1, status: 'completed', created_gte: since };
    const pages = await walkPages<SessionItem>(client, PATH, query);
    const expected = newestFirst.filter(
      (s) => s.status === 'completed' && s.createdAt >= newestFirst[4].createdAt,
    );
    expect(expected.length).toBeGreaterThan(1);
    expect(pages.flatMap((page) => page.data.map((item) => item.id))).toEqual(expected.map((s) => s.id));

    const first = await client.get(PATH, query);
    const elsewhere = await client.get(PATH, {
      ...query,
      status: 'scheduled',
      cursor: first.body.next_cursor,
    });
    expectParameterInvalid(elsewhere, 'cursor');
  });

  it.each([
    ['limit', { limit: 0 }],
    ['limit', { limit: 101 }],
    ['limit', { limit: 1.5 }],
    ['limit', { limit: 'abc' }],
    ['created_gte', { created_gte: 'not a date' }],
    ['created_gte', { created_gte: '+010000-01-01T00:00:00.000Z' }],
    ['cursor', { cursor: 'garbage' }],
  ])('refuses %s out of bounds (%j) with the module 400', async (param, query) => {
    const res = await client.get(PATH, query);
    expectParameterInvalid(res, param);
    expect(res.body.error.message).toMatch(new RegExp(`^${param} `));
  });

  it('answers a bad limit with the same message as a module list does', async () => {
    for (const limit of [0, 101, 1.5, 'abc']) {
      const ours = await client.get(PATH, { limit });
      const module = await client.get('/v1/sessions', { limit });
      expect(ours.body).toEqual(module.body);
    }
  });

  it('refuses a repeated limit', async () => {
    expectParameterInvalid(await client.get(`${PATH}?limit=1&limit=2`), 'limit');
  });
});
