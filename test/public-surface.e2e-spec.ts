import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The package as a host's compiler sees it: the declarations `npm run build` would write (emitted
 * here, in memory, with tsconfig.build.json's own options, so that `npm test` needs no dist/ and
 * tests what the next build publishes), and a host's source type-checked against them under strict
 * settings. The host source uses every public name the README documents, in its documented shape (the
 * methods of WebhookEndpointsService and their signatures exactly), and marks
 * with @ts-expect-error each internal that must not be reachable: an internal that shows up again
 * makes its @ts-expect-error an error of its own.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the declarations would be; nothing is written there. */
const PACKAGE = join(ROOT, '.tmp', 'public-surface');
const HOST_SOURCE = join(PACKAGE, 'host.ts');

const HOST = `
import { Get, Injectable, Module } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import {
  ApiKeyEntity,
  ApiKeyGuard,
  ApiKeysService,
  ApiV1Controller,
  AttemptEntity,
  CurrentApiKey,
  DeliveryEntity,
  EventEntity,
  EventPublisher,
  IdempotencyKeyEntity,
  InstallationEntity,
  InterviewApiModule,
  Paginator,
  PendingDeliveryEntity,
  POSTGRES_MIGRATIONS,
  RequireScopes,
  SCOPES,
  SQLITE_MIGRATIONS,
  isScope,
  WebhookEndpointEntity,
  WebhookEndpointsService,
  WebhookVerificationError,
  interviewApiMigrations,
  parseListParams,
  verifyWebhook,
  type AccountScope,
  type ApiEvent,
  type ApiKeyView,
  type AuthenticatedApiKey,
  type CreateWebhookEndpointInput,
  type DeletedWebhookEndpoint,
  type DeliveryListQuery,
  type DeliveryView,
  type HeadersLike,
  type InterviewApiFactoryOptions,
  type InterviewApiForRootAsyncOptions,
  type InterviewApiForRootOptions,
  type InterviewApiModuleOptions,
  type KeyMode,
  type ListEnvelope,
  type ListQuery,
  type PageRequest,
  type ResourceDefinition,
  type Scope,
  type UpdateWebhookEndpointInput,
  type WebhookEndpointView,
  type WebhookVerificationFailure,
} from './index.js';

/** Whether A and B are the same type, not merely assignable to each other. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

class InterviewSession {
  id!: string;
  orgId!: string;
  livemode!: boolean;
  createdAt!: Date;
  status!: string;
}

const sessions: ResourceDefinition<InterviewSession> = {
  path: 'sessions',
  entity: InterviewSession,
  object: 'session',
  scope: 'results:read',
  filters: ['status'],
  columns: { accountId: 'orgId' },
  toJSON: (row) => ({ id: row.id, object: 'session', status: row.status }),
};

const base: InterviewApiModuleOptions = {
  keyPrefix: 'iv',
  cursorSecret: 'a cursor secret of at least thirty-two characters',
  redis: { host: '127.0.0.1', port: 6379 },
};

const options: InterviewApiForRootOptions = {
  ...base,
  serviceName: 'Interview',
  apiVersion: '2026-11-21',
  eventTypes: ['session.completed'],
  webhooks: {
    timeoutMs: 10_000,
    retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
    allowInsecureUrls: false,
    concurrency: 50,
  },
  worker: true,
  resources: [sessions],
};

const asyncOptions: InterviewApiForRootAsyncOptions = {
  imports: [],
  inject: [],
  useFactory: (): InterviewApiModuleOptions => base,
  resources: [sessions],
};

const injectedOptions: InterviewApiForRootAsyncOptions = {
  inject: ['KEY_PREFIX'],
  useFactory: async (keyPrefix: string): Promise<InterviewApiFactoryOptions> => ({ ...base, keyPrefix }),
};

const factoryResources: InterviewApiForRootAsyncOptions = {
  // @ts-expect-error resources decide the routes before any factory runs: they go to forRootAsync itself
  useFactory: () => ({ ...base, resources: [sessions] }),
};

const misspelt: ResourceDefinition<InterviewSession> = {
  path: 'sessions',
  entity: InterviewSession,
  object: 'session',
  scope: 'results:read',
  // @ts-expect-error a filter names a property of the entity
  filters: ['stauts'],
  // @ts-expect-error so does a column rename
  columns: { accountId: 'orgid' },
};

class Candidate {
  id!: string;
  accountId!: string;
  livemode!: boolean;
  createdAt!: Date;
  stage!: string;
}

// A list of several entities' resources, each checked where it was written.
const resources: ResourceDefinition[] = [sessions, { path: 'any', entity: InterviewSession, object: 'x', scope: 'results:read', filters: ['anything'] }];

@Module({
  imports: [
    InterviewApiModule.forRoot(options),
    InterviewApiModule.forRoot({ ...base, resources }),
    InterviewApiModule.forRoot({
      ...base,
      resources: [
        { path: 'sessions', entity: InterviewSession, object: 'session', scope: 'results:read', filters: ['status'] },
        {
          path: 'candidates',
          entity: Candidate,
          object: 'candidate',
          scope: 'candidates:read',
          filters: ['stage'],
          toJSON: (row) => ({ stage: row.stage }),
        },
      ],
    }),
    InterviewApiModule.forRoot({
      ...base,
      resources: [
        {
          path: 'sessions',
          entity: InterviewSession,
          object: 'session',
          scope: 'results:read',
          // @ts-expect-error inline in forRoot, a filter names a property of its own entity
          filters: ['stage'],
        },
        {
          path: 'candidates',
          entity: Candidate,
          object: 'candidate',
          scope: 'candidates:read',
          // @ts-expect-error and so does a column rename
          columns: { createdAt: 'created_at' },
        },
      ],
    }),
    InterviewApiModule.forRootAsync({
      useFactory: () => base,
      resources: [{ path: 'candidates', entity: Candidate, object: 'candidate', scope: 'candidates:read', filters: ['stage'] }],
    }),
    InterviewApiModule.forRootAsync({
      useFactory: () => base,
      resources: [
        {
          path: 'candidates',
          entity: Candidate,
          object: 'candidate',
          scope: 'candidates:read',
          // @ts-expect-error inline in forRootAsync too
          filters: ['stauts'],
        },
      ],
    }),
  ],
})
export class AppModule {}

@Module({ imports: [InterviewApiModule.forRootAsync(asyncOptions)] })
export class AsyncAppModule {}

@Module({ imports: [InterviewApiModule.forRootAsync(injectedOptions), InterviewApiModule.forRootAsync(factoryResources)] })
export class InjectedAppModule {}

@Injectable()
export class Dashboard {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly publisher: EventPublisher,
  ) {}

  async keyLifecycle(accountId: string, roles: string[], mode: KeyMode): Promise<ApiKeyView[]> {
    const created: { key: string; apiKey: ApiKeyView } = await this.keys.create({
      accountId,
      name: 'CI',
      mode,
      scopes: ['results:read'],
      // Scopes read as strings (a JWT's, say), narrowed.
      creatorScopes: roles.filter(isScope),
    });
    const view: ApiKeyView = created.apiKey;
    const fields: [string, string, boolean, Scope[], string, string, string | null, string | null] = [
      view.id, view.name, view.livemode, view.scopes, view.last4, view.created_at, view.last_used_at, view.revoked_at,
    ];
    void fields;
    await this.keys.revoke(accountId, view.id);
    // @ts-expect-error the guard's own step, which skips its rate limit
    await this.keys.authenticate(created.key);
    return this.keys.list(accountId);
  }

  async publish(manager: EntityManager): Promise<ApiEvent> {
    const input = { accountId: 'org_1', type: 'session.completed', livemode: true, data: { id: 's_1', object: 'session', score: 3 } };
    // @ts-expect-error the module's own path, which skips publish's checks
    await this.publisher.store(input, { endpointId: null });
    return this.publisher.publish(input, { manager });
  }
}

/** WebhookEndpointsService's methods, exactly: each takes the account and mode, then what its route receives. */
interface EndpointManagement {
  create(scope: AccountScope, input: CreateWebhookEndpointInput): Promise<WebhookEndpointView>;
  list(scope: AccountScope, query?: ListQuery): Promise<ListEnvelope<WebhookEndpointView>>;
  retrieve(scope: AccountScope, id: string): Promise<WebhookEndpointView>;
  update(scope: AccountScope, id: string, patch: UpdateWebhookEndpointInput): Promise<WebhookEndpointView>;
  remove(scope: AccountScope, id: string): Promise<DeletedWebhookEndpoint>;
  rotateSecret(scope: AccountScope, id: string): Promise<WebhookEndpointView>;
  sendTest(scope: AccountScope, id: string): Promise<DeliveryView>;
  listDeliveries(scope: AccountScope, id: string, query?: DeliveryListQuery): Promise<ListEnvelope<DeliveryView>>;
  retrieveDelivery(scope: AccountScope, id: string, deliveryId: string): Promise<DeliveryView>;
  replay(scope: AccountScope, id: string, deliveryId: string): Promise<DeliveryView>;
}
export const endpointMethods: Same<keyof WebhookEndpointsService, keyof EndpointManagement> = true;
export const endpointSignatures: { [Name in keyof EndpointManagement]: Same<WebhookEndpointsService[Name], EndpointManagement[Name]> } = {
  create: true, list: true, retrieve: true, update: true, remove: true, rotateSecret: true,
  sendTest: true, listDeliveries: true, retrieveDelivery: true, replay: true,
};
export const accountScope: Same<AccountScope, { accountId: string; livemode: boolean }> = true;
export const createInput: Same<CreateWebhookEndpointInput, { url: string; enabled_events: string[]; description?: string | null }> = true;
export const updateInput: Same<
  UpdateWebhookEndpointInput,
  { url?: string; enabled_events?: string[]; description?: string | null; disabled?: boolean }
> = true;
export const listQuery: Same<
  ListQuery,
  { limit?: number | string; cursor?: string; created_gte?: Date | string; created_lt?: Date | string }
> = true;
export const deliveryListQuery: Same<
  DeliveryListQuery,
  {
    limit?: number | string;
    cursor?: string;
    created_gte?: Date | string;
    created_lt?: Date | string;
    status?: 'pending' | 'succeeded' | 'failed';
    event_id?: string;
  }
> = true;

/** A host's dashboard controller, managing endpoints for its signed-in user's organisation. */
@Injectable()
export class EndpointsDashboard {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  async manage(orgId: string, key: AuthenticatedApiKey): Promise<DeliveryView> {
    const scope: AccountScope = { accountId: orgId, livemode: false };
    const created = await this.endpoints.create(scope, { url: 'https://example.com/hook', enabled_events: ['*'] });
    const secret: string | undefined = created.secret;
    void secret;
    await this.endpoints.list(scope, { limit: 10, created_gte: new Date(), created_lt: '2026-12-01' });
    await this.endpoints.list(key, { limit: '10', cursor: 'next' });
    await this.endpoints.update(scope, created.id, { description: null, disabled: true });
    await this.endpoints.listDeliveries(scope, created.id, { status: 'failed', event_id: 'evt_1', limit: 5 });
    // @ts-expect-error the routes' snake_case fields
    await this.endpoints.create(scope, { url: 'https://example.com/hook', enabledEvents: ['*'] });
    // @ts-expect-error the account and mode come first
    await this.endpoints.retrieve(created.id);
    // @ts-expect-error a status no delivery has
    await this.endpoints.listDeliveries(scope, created.id, { status: 'done' });
    const deleted: DeletedWebhookEndpoint = await this.endpoints.remove(scope, created.id);
    void deleted;
    return this.endpoints.sendTest(scope, created.id);
  }
}

@ApiV1Controller('invitations')
@RequireScopes('candidates:read')
export class InvitationsController {
  constructor(
    private readonly paginator: Paginator,
    private readonly dataSource: DataSource,
  ) {}

  @Get()
  list(@CurrentApiKey() key: AuthenticatedApiKey): Promise<ListEnvelope<{ id: string }>> {
    const scope: { id: string; accountId: string; livemode: boolean; scopes: readonly Scope[] } = key;
    const request: PageRequest<InterviewSession> = {
      list: 'invitations',
      query: this.dataSource.getRepository(InterviewSession).createQueryBuilder('session'),
      params: parseListParams({ limit: '10' }, ['status']),
      scope,
    };
    // @ts-expect-error raw SQL for the module's own unindexed filters
    const unindexed: PageRequest<InterviewSession> = { ...request, unindexed: { condition: '1 = 1', parameters: {} } };
    // @ts-expect-error the event feed's own page size bound
    const sized: PageRequest<InterviewSession> = { ...request, sizeBudget: { property: 'status', max: 1 } };
    void [unindexed, sized];
    return this.paginator.page(request, (row) => ({ id: row.id }));
  }
}

export const guard: typeof ApiKeyGuard = ApiKeyGuard;
export const definitions = [misspelt];
export const scopes: readonly Scope[] = SCOPES;
export const entities = [
  ApiKeyEntity, WebhookEndpointEntity, EventEntity, DeliveryEntity, PendingDeliveryEntity,
  AttemptEntity, IdempotencyKeyEntity, InstallationEntity,
];
export const migrations = [...POSTGRES_MIGRATIONS, ...SQLITE_MIGRATIONS, ...interviewApiMigrations('postgres')];

export function receive(rawBody: Buffer, headers: HeadersLike, secret: string): WebhookVerificationFailure | null {
  try {
    verifyWebhook(rawBody, headers, secret, { toleranceSeconds: 300 });
    return null;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}
`;

/** tsconfig.build.json's options, the declarations kept in memory under PACKAGE. */
function emitDeclarations(): Map<string, string> {
  const build = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.build.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!build) throw new Error('tsconfig.build.json could not be read');
  const program = ts.createProgram(build.fileNames, { ...build.options, outDir: PACKAGE, sourceMap: false });
  const declarations = new Map<string, string>();
  const result = program.emit(undefined, (file, text) => declarations.set(file, text), undefined, true);
  expect(result.diagnostics.map(located)).toEqual([]);
  return declarations;
}

/** A compiler host that sees `files` under PACKAGE, and only them there, and the disk elsewhere. */
function hostWith(files: Map<string, string>, options: ts.CompilerOptions): ts.CompilerHost {
  const disk = ts.createCompilerHost(options);
  const virtual = (path: string): boolean => path === PACKAGE || path.startsWith(PACKAGE + sep);
  return {
    ...disk,
    fileExists: (path) => (virtual(path) ? files.has(path) : disk.fileExists(path)),
    readFile: (path) => (virtual(path) ? files.get(path) : disk.readFile(path)),
    directoryExists: (path) =>
      virtual(path)
        ? [...files.keys()].some((file) => dirname(file).startsWith(path))
        : ts.sys.directoryExists(path),
    getSourceFile: (path, language, onError) => {
      if (!virtual(path)) return disk.getSourceFile(path, language, onError);
      const text = files.get(path);
      return text === undefined ? undefined : ts.createSourceFile(path, text, language);
    },
  };
}

function located(diagnostic: ts.Diagnostic): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  if (!diagnostic.file || diagnostic.start === undefined) return message;
  const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return `${relative(ROOT, diagnostic.file.fileName)}:${line + 1}: ${message}`;
}

describe('the package root, as a host compiles against it', () => {
  it('holds every public name in its documented shape, and none of the internals', () => {
    const files = emitDeclarations();
    expect(files.has(join(PACKAGE, 'index.d.ts'))).toBe(true);
    files.set(HOST_SOURCE, HOST);
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts'],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
      // As strict as a host may be: a declaration that needs a laxer host is a bug of the package.
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      experimentalDecorators: true,
      // The package's own declarations are checked below; other packages' are not this test's to check.
      skipLibCheck: false,
      noEmit: true,
    };
    const program = ts.createProgram([HOST_SOURCE], options, hostWith(files, options));
    const ours = program.getSourceFiles().filter((file) => files.has(file.fileName));
    expect(ours.length).toBeGreaterThan(1);
    const diagnostics = [
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...ours.flatMap((file) => [
        ...program.getSyntacticDiagnostics(file),
        ...program.getSemanticDiagnostics(file),
      ]),
    ];
    expect(diagnostics.map(located)).toEqual([]);
  }, 120_000);
});
