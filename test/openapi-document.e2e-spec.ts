import { Get, type INestApplication, Module, Post, VersioningType } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  DocumentBuilder,
  SwaggerModule,
} from '@nestjs/swagger';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import {
  addInterviewApiWebhooks,
  ApiV1Controller,
  BUILT_IN_EVENT_TYPES,
  createInterviewApiDocument,
  InterviewApiModule,
  RequireScopes,
} from '../lib/index.js';
import { REQUIRED_SCOPES_EXTENSION } from '../lib/openapi/v1-route-documentation.js';
import { CURSOR_SECRET, type TestHostOptions } from './support/host-app.js';
import { TestDatabase } from './support/database.js';
import { documentedRoutes, expectValidOpenApi, mappedRoutes } from './support/openapi.js';
import { closedAfterEachTest } from './support/per-test.js';
import { SessionEntity } from './support/session.entity.js';
import { startApp } from './support/started-app.js';

/** A host's own /v1 route, which the module's document leaves out and the host's own holds. */
@ApiV1Controller('invitations')
@RequireScopes('candidates:read')
class InvitationsController {
  @Get()
  @ApiOkResponse({ description: 'The invitations.' })
  list(): { object: 'list' } {
    return { object: 'list' };
  }
}

/** A host controller whose class scopes are written above @ApiV1Controller, so applied after it. */
@RequireScopes('invitations:send')
@ApiV1Controller('invitation_batches')
class InvitationBatchesController {
  @Post()
  @ApiOperation({ summary: 'Send a batch', description: 'Sends every invitation of the batch.' })
  @ApiCreatedResponse({ description: 'The batch is sent.' })
  send(): { object: 'invitation_batch' } {
    return { object: 'invitation_batch' };
  }
}

/** A module the app does not import: a document of it alone holds none of the app's routes. */
@Module({})
class UnmountedModule {}

/** A resource whose item is shaped by its toJSON, with the schema it gives for it. */
@Entity({ name: 'host_reviews' })
@Index(['accountId', 'livemode', 'createdAt', 'id'])
class ReviewEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 255 })
  accountId!: string;

  @Column({ type: 'boolean' })
  livemode!: boolean;

  @Column({ type: 'integer', nullable: true })
  score!: number | null;

  @Column({ name: 'created_at' })
  createdAt!: Date;
}

const MODULE_ROUTES = [
  'GET /v1/ping',
  'GET /v1/me',
  'POST /v1/webhook_endpoints',
  'GET /v1/webhook_endpoints',
  'GET /v1/webhook_endpoints/{id}',
  'PATCH /v1/webhook_endpoints/{id}',
  'DELETE /v1/webhook_endpoints/{id}',
  'POST /v1/webhook_endpoints/{id}/rotate_secret',
  'GET /v1/webhook_endpoints/{id}/deliveries',
  'GET /v1/webhook_endpoints/{id}/deliveries/{delivery_id}',
  'POST /v1/webhook_endpoints/{id}/deliveries/{delivery_id}/replay',
  'POST /v1/webhook_endpoints/{id}/test',
  'GET /v1/events',
  'GET /v1/events/{id}',
  'GET /v1/sessions',
  'GET /v1/sessions/{id}',
];

/** The operation of `route` (`METHOD /path`) in a document. */
function operationOf(document: { paths: Record<string, object> }, route: string): Record<string, unknown> {
  const [method, path] = route.split(' ');
  return (document.paths[path] as Record<string, Record<string, unknown>>)[method.toLowerCase()];
}

describe('the OpenAPI document', () => {
  const { boot } = closedAfterEachTest();

  it('is a valid OpenAPI 3.1 document of every route the module maps, and of no other', async () => {
    const host = await boot({ controllers: [InvitationsController] });
    const document = createInterviewApiDocument(host.app, {
      title: 'Test API',
      version: '7',
      serverUrl: 'https://api.example.com',
    });
    await expectValidOpenApi(document);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({ title: 'Test API', version: '7' });
    expect(document.servers).toEqual([{ url: 'https://api.example.com' }]);
    // The host's own routes, under /v1 or not, are mapped but not the module's.
    const mapped = mappedRoutes(host.app);
    expect(mapped).toEqual(
      expect.arrayContaining(['GET /host/hello', 'GET /v1/host_status', 'GET /v1/invitations']),
    );
    const moduleMapped = mapped.filter((route) => MODULE_ROUTES.includes(route));
    expect(moduleMapped.sort()).toEqual([...MODULE_ROUTES].sort());
    expect(documentedRoutes(document).sort()).toEqual([...MODULE_ROUTES].sort());
  });

  it('gives every operation a summary, its scopes, the bearer security and its error answers', async () => {
    const host = await boot({});
    const document = createInterviewApiDocument(host.app);
    expect(document.components?.securitySchemes?.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const route of MODULE_ROUTES) {
      const operation = operationOf(document, route);
      const scopes =
        route.endsWith('/ping') || route.endsWith('/me')
          ? []
          : route.includes('/sessions')
            ? ['results:read']
            : ['developers:manage'];
      const responses = Object.keys(operation.responses as object);
      const expected = ['400', '401', '429', '500'];
      if (scopes.length > 0) expected.push('403');
      if (route.includes('{')) expected.push('404');
      if (route.startsWith('POST')) expected.push('409', '415');
      if (route.startsWith('PATCH')) expected.push('415');
      expect({ route, summary: typeof operation.summary }).toEqual({ route, summary: 'string' });
      expect({ route, scopes: operation[REQUIRED_SCOPES_EXTENSION] }).toEqual({ route, scopes });
      expect({ route, security: operation.security }).toEqual({ route, security: [{ bearer: scopes }] });
      expect({ route, description: operation.description }).toEqual({
        route,
        description: expect.stringContaining(scopes.length > 0 ? `\`${scopes[0]}\`` : 'Any valid API key'),
      });
      expect({ route, errors: responses.filter((status) => !status.startsWith('2')).sort() }).toEqual({
        route,
        errors: expected.sort(),
      });
      const idempotencyKey = (operation.parameters as { name: string; in: string }[]).some(
        (parameter) => parameter.name === 'Idempotency-Key' && parameter.in === 'header',
      );
      expect({ route, idempotencyKey }).toEqual({ route, idempotencyKey: route.startsWith('POST') });
      const inPath = (operation.parameters as { name: string; in: string }[])
        .filter((parameter) => parameter.in === 'path')
        .map((parameter) => parameter.name);
      const templated = [...route.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect({ route, inPath }).toEqual({ route, inPath: templated });
    }
    const operationIds = MODULE_ROUTES.map((route) => operationOf(document, route).operationId);
    expect(new Set(operationIds).size).toBe(MODULE_ROUTES.length);
  });

  it('lists one webhook per event type, the host’s included, as POSTs outside the paths', async () => {
    const host = await boot({ module: { eventTypes: ['session.completed', 'review.created'] } });
    const document = createInterviewApiDocument(host.app);
    const types = [...BUILT_IN_EVENT_TYPES, 'session.completed', 'review.created'];
    expect(Object.keys(document.webhooks ?? {})).toEqual(types);
    for (const type of types) {
      const operation = document.webhooks![type].post!;
      const headers = (operation.parameters as { name: string; in: string; required: boolean }[]).map(
        ({ name, in: where, required }) => ({ name, in: where, required }),
      );
      expect(headers).toEqual(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({
          name,
          in: 'header',
          required: true,
        })),
      );
      expect(operation.description).toContain('Standard Webhooks');
      expect((operation.responses['2XX'] as { description: string }).description).toContain(
        'Any 2xx within 10 s is success',
      );
    }
    expect(Object.keys(document.paths).filter((path) => !path.startsWith('/v1/'))).toEqual([]);
  });

  it('reads the event types and the timeout a forRootAsync factory gives', async () => {
    const db = await TestDatabase.create();
    let app: INestApplication | undefined;
    try {
      app = await startApp([
        TypeOrmModule.forRoot({ ...db.options(), autoLoadEntities: true }),
        InterviewApiModule.forRootAsync({
          useFactory: async () => ({
            keyPrefix: 'iv',
            cursorSecret: CURSOR_SECRET,
            redis: { host: '127.0.0.1', port: 6379 },
            queuePrefix: db.name,
            eventTypes: ['interview.scheduled'],
            worker: false,
            rateLimit: false,
            webhooks: { timeoutMs: 4_500 },
          }),
        }),
      ]);
      const document = createInterviewApiDocument(app);
      await expectValidOpenApi(document);
      expect(Object.keys(document.webhooks ?? {})).toEqual([...BUILT_IN_EVENT_TYPES, 'interview.scheduled']);
      expect(
        (document.webhooks!['interview.scheduled'].post!.responses['2XX'] as { description: string })
          .description,
      ).toContain('Any 2xx within 4.5 s is success');
    } finally {
      await app?.close();
      await db.drop();
    }
  });

  it.each<[string, TestHostOptions, string]>([
    ['a global prefix', { globalPrefix: 'api' }, '/api/v1/'],
    [
      'a global prefix whose exclude keeps /v1 out of it',
      { configure: (app) => app.setGlobalPrefix('api', { exclude: ['v1/*path'] }) },
      '/v1/',
    ],
    ['URI versioning', { versioning: { type: VersioningType.URI, defaultVersion: '2' } }, '/v1/'],
  ])('follows %s as the routes do', async (_setting, options, base) => {
    const host = await boot(options);
    const document = createInterviewApiDocument(host.app);
    await expectValidOpenApi(document);
    const expected = MODULE_ROUTES.map((route) => route.replace(' /v1/', ` ${base}`));
    expect(documentedRoutes(document).sort()).toEqual([...expected].sort());
    expect(mappedRoutes(host.app)).toEqual(expect.arrayContaining(expected));
  });

  it('describes a resource from its entity’s columns, or from the schema its definition gives', async () => {
    const host = await boot({
      entities: [ReviewEntity],
      resources: [
        {
          path: 'sessions',
          entity: SessionEntity,
          object: 'session',
          scope: 'results:read',
          filters: ['status'],
        },
        {
          path: 'reviews',
          entity: ReviewEntity,
          object: 'review',
          scope: 'results:read',
          toJSON: (row) => ({ rating: (row as ReviewEntity).score }),
          schema: {
            type: 'object',
            required: ['rating'],
            properties: { rating: { type: ['integer', 'null'] } },
          },
        },
      ],
    });
    const document = createInterviewApiDocument(host.app);
    await expectValidOpenApi(document);
    const itemOf = (route: string): unknown =>
      (
        operationOf(document, route).responses as Record<
          string,
          { content: Record<string, { schema: unknown }> }
        >
      )['200'].content['application/json'].schema;
    expect(itemOf('GET /v1/sessions/{id}')).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        object: { type: 'string', enum: ['session'] },
        account_id: { type: 'string' },
        livemode: { type: 'boolean' },
        status: { type: 'string' },
        candidate_name: { type: 'string' },
        created_at: { type: 'string', format: 'date-time' },
      },
      required: ['id', 'object', 'account_id', 'livemode', 'status', 'candidate_name', 'created_at'],
    });
    expect(itemOf('GET /v1/reviews/{id}')).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        object: { type: 'string', enum: ['review'] },
        rating: { type: ['integer', 'null'] },
      },
      required: ['id', 'object', 'rating'],
    });
    const filters = (operationOf(document, 'GET /v1/sessions').parameters as { name: string }[]).map(
      (p) => p.name,
    );
    expect(filters).toEqual(['limit', 'cursor', 'created_gte', 'created_lt', 'status']);
  });

  it('refuses a resource schema that is no object, naming the option', async () => {
    await expect(
      boot({
        resources: [
          {
            path: 'sessions',
            entity: SessionEntity,
            object: 'session',
            scope: 'results:read',
            schema: 'session' as never,
          },
        ],
      }),
    ).rejects.toMatchObject({
      name: 'InvalidModuleOptionsError',
      message: expect.stringContaining('option "resources[0].schema" must be an OpenAPI schema object'),
    });
  });

  it('documents a host route’s scopes whichever side of @ApiV1Controller @RequireScopes is written', async () => {
    const host = await boot({ controllers: [InvitationsController, InvitationBatchesController] });
    const document = SwaggerModule.createDocument(
      host.app,
      new DocumentBuilder().setOpenAPIVersion('3.1.0').setTitle('Host').build(),
    );
    for (const [route, scope] of [
      ['GET /v1/invitations', 'candidates:read'],
      ['POST /v1/invitation_batches', 'invitations:send'],
    ]) {
      const operation = operationOf(document, route);
      expect({ route, scopes: operation[REQUIRED_SCOPES_EXTENSION] }).toEqual({ route, scopes: [scope] });
      expect({ route, security: operation.security }).toEqual({ route, security: [{ bearer: [scope] }] });
      expect({ route, has403: '403' in (operation.responses as object) }).toEqual({ route, has403: true });
    }
    const batches = operationOf(document, 'POST /v1/invitation_batches');
    expect(batches.description).toBe(
      'Sends every invitation of the batch.\n\nRequires the API key scope `invitations:send`.',
    );
    const headers = (batches.parameters as { name: string }[]).filter((p) => p.name === 'Idempotency-Key');
    expect(headers).toHaveLength(1);
  });

  it('completes a host’s own 3.1 document with the webhooks, and refuses a 3.0 one', async () => {
    const host = await boot({ controllers: [InvitationsController] });
    const hostDocument = SwaggerModule.createDocument(
      host.app,
      new DocumentBuilder().setOpenAPIVersion('3.1.0').setTitle('Host').build(),
    );
    // The module's operations come with the host's document, through the decorators alone.
    expect(documentedRoutes(hostDocument)).toEqual(
      expect.arrayContaining([...MODULE_ROUTES, 'GET /v1/invitations']),
    );
    expect(operationOf(hostDocument, 'GET /v1/invitations')[REQUIRED_SCOPES_EXTENSION]).toEqual([
      'candidates:read',
    ]);
    addInterviewApiWebhooks(hostDocument, host.app);
    await expectValidOpenApi(hostDocument);
    expect(Object.keys(hostDocument.webhooks ?? {})).toEqual([...BUILT_IN_EVENT_TYPES, 'session.completed']);

    // A document of none of the module's routes gets the event schema and the scheme with them.
    const bare = SwaggerModule.createDocument(
      host.app,
      new DocumentBuilder().setOpenAPIVersion('3.1.0').build(),
      {
        include: [UnmountedModule],
      },
    );
    expect(bare.paths).toEqual({});
    addInterviewApiWebhooks(bare, host.app);
    await expectValidOpenApi(bare);
    expect(Object.keys(bare.components?.schemas ?? {}).sort()).toEqual(['Event', 'EventData']);

    const openApi30 = SwaggerModule.createDocument(host.app, new DocumentBuilder().build());
    expect(() => addInterviewApiWebhooks(openApi30, host.app)).toThrow(
      "addInterviewApiWebhooks needs an OpenAPI 3.1 document; this one is 3.0.0. Build it with new DocumentBuilder().setOpenAPIVersion('3.1.0').",
    );
  });
});
