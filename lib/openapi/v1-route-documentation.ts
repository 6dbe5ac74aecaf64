import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ApiHeader, type ApiOperationOptions, type ApiResponseOptions, DECORATORS } from '@nestjs/swagger';
import { MAX_KEY_LENGTH as MAX_IDEMPOTENCY_KEY_LENGTH } from '../idempotency/idempotency.interceptor.js';
import { REQUIRED_SCOPES } from '../interview-api.constants.js';
import { ApiErrorResponse, type ErrorStatus } from './error-responses.js';
import { RATE_LIMIT_HEADERS, REQUEST_ID_HEADER } from './response-headers.js';
import { API_KEY_SECURITY } from './security-scheme.js';

const BODY_METHODS: readonly RequestMethod[] = [RequestMethod.POST, RequestMethod.PUT, RequestMethod.PATCH];

/** Where a route's scopes are in its OpenAPI operation, besides its description. */
export const REQUIRED_SCOPES_EXTENSION = 'x-required-scopes';

/** What a handler's route declares, as the documentation reads it. */
interface DeclaredRoute {
  method: RequestMethod;
  hasPathParameter: boolean;
  scopes: string[];
}

/** The statuses a route answers in the error envelope, from what it declares. */
function errorStatuses({ method, hasPathParameter, scopes }: DeclaredRoute): ErrorStatus[] {
  const statuses: ErrorStatus[] = [400, 401];
  if (scopes.length > 0) statuses.push(403);
  if (hasPathParameter) statuses.push(404);
  // A POST with the Idempotency-Key of a request still running.
  if (method === RequestMethod.POST) statuses.push(409);
  if (BODY_METHODS.includes(method)) statuses.push(415);
  statuses.push(429, 500);
  return statuses;
}

function scopeSentence(scopes: string[]): string {
  if (scopes.length === 0) return 'Any valid API key may call it.';
  const named = scopes.map((scope) => `\`${scope}\``).join(', ');
  return `Requires the API key scope${scopes.length > 1 ? 's' : ''} ${named}.`;
}

/** Each successful answer also carries the request's id and the key's rate-limit state. */
function withSuccessHeaders(
  responses: Record<string, ApiResponseOptions>,
): Record<string, ApiResponseOptions> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      status.startsWith('2')
        ? { ...response, headers: { ...REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS, ...response.headers } }
        : response,
    ]),
  );
}

/** A controller class, as the documentation reads it: its prototype holds the handlers. */
interface ControllerClass {
  prototype: object;
}

/** Where DocumentV1Routes keeps a controller's path, and each handler's description of its own. */
const DOCUMENTED_PATH = 'interview-api:openapi-controller-path';
const OWN_DESCRIPTION = 'interview-api:openapi-own-description';

const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Whether a handler's parameters already document the `Idempotency-Key` header. */
function documentsIdempotencyKey(handler: object): boolean {
  const parameters = (Reflect.getMetadata(DECORATORS.API_PARAMETERS, handler) ?? []) as {
    name?: string;
    in?: string;
  }[];
  return parameters.some(
    (parameter) => parameter.name === IDEMPOTENCY_KEY_HEADER && parameter.in === 'header',
  );
}

/**
 * Writes one route's documentation from what it declares now. Run again (a class-level
 * @RequireScopes applied after @ApiV1Controller), it replaces what it wrote: the description is
 * rebuilt from the route's own, and the security and `x-required-scopes` are set, not added to.
 */
function documentRoute(
  prototype: object,
  name: string,
  descriptor: PropertyDescriptor,
  route: DeclaredRoute,
): void {
  const handler = descriptor.value as object;
  if (!Reflect.hasOwnMetadata(OWN_DESCRIPTION, handler)) {
    const own = (Reflect.getMetadata(DECORATORS.API_OPERATION, handler) as ApiOperationOptions | undefined)
      ?.description;
    Reflect.defineMetadata(OWN_DESCRIPTION, own ?? '', handler);
  }
  const ownDescription = Reflect.getOwnMetadata(OWN_DESCRIPTION, handler) as string;
  const operation = (Reflect.getMetadata(DECORATORS.API_OPERATION, handler) ?? {}) as ApiOperationOptions;
  Reflect.defineMetadata(
    DECORATORS.API_OPERATION,
    { ...operation, description: [ownDescription, scopeSentence(route.scopes)].filter(Boolean).join('\n\n') },
    handler,
  );
  const security = (Reflect.getMetadata(DECORATORS.API_SECURITY, handler) ?? []) as Record<
    string,
    string[]
  >[];
  Reflect.defineMetadata(
    DECORATORS.API_SECURITY,
    [
      ...security.filter((requirement) => !(API_KEY_SECURITY in requirement)),
      { [API_KEY_SECURITY]: route.scopes },
    ],
    handler,
  );
  const extensions = (Reflect.getMetadata(DECORATORS.API_EXTENSION, handler) ?? {}) as Record<
    string,
    unknown
  >;
  Reflect.defineMetadata(
    DECORATORS.API_EXTENSION,
    { ...extensions, [REQUIRED_SCOPES_EXTENSION]: route.scopes },
    handler,
  );
  const responses = (Reflect.getMetadata(DECORATORS.API_RESPONSE, handler) ?? {}) as Record<
    string,
    ApiResponseOptions
  >;
  Reflect.defineMetadata(DECORATORS.API_RESPONSE, withSuccessHeaders(responses), handler);
  for (const status of errorStatuses(route)) {
    if (responses[status] === undefined) ApiErrorResponse(status)(prototype, name, descriptor);
  }
  if (route.method === RequestMethod.POST && !documentsIdempotencyKey(handler)) {
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description:
        'Retries with the same key, route and parameters within 24 hours get the first answer again ' +
        '(`Idempotent-Replayed: true`) and run nothing.',
      schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
    })(prototype, name, descriptor);
  }
}

/** Documents each route of `controller`, mounted at `controllerPath` under /v1. */
function documentRoutes(controller: ControllerClass, controllerPath: string): void {
  const { prototype } = controller;
  const classScopes = Reflect.getMetadata(REQUIRED_SCOPES, controller) as string[] | undefined;
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
    const handler: unknown = descriptor?.value;
    if (descriptor === undefined || typeof handler !== 'function' || name === 'constructor') continue;
    const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
    if (method === undefined) continue;
    const handlerPath = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
    documentRoute(prototype, name, descriptor, {
      method,
      hasPathParameter: `${controllerPath}/${handlerPath}`.includes(':'),
      scopes: (Reflect.getMetadata(REQUIRED_SCOPES, handler) as string[] | undefined) ?? classScopes ?? [],
    });
  }
}

/**
 * Documents every route of a /v1 controller from what it declares: the bearer security with its
 * scopes (also as `x-required-scopes` and in the description), `Idempotency-Key` on POST, the error
 * envelope of each status the module's guard, interceptors and pipes may answer, and the headers of
 * a success. A status or description the route documents itself is kept.
 */
export function DocumentV1Routes(controllerPath: string): ClassDecorator {
  return (controller) => {
    Reflect.defineMetadata(DOCUMENTED_PATH, controllerPath, controller);
    documentRoutes(controller, controllerPath);
  };
}

/**
 * Documents a /v1 controller's routes again after its scopes changed: a class-level @RequireScopes
 * written above @ApiV1Controller runs after it. Nothing for a class DocumentV1Routes has not seen.
 */
export function redocumentV1Routes(controller: object): void {
  const controllerPath = Reflect.getOwnMetadata(DOCUMENTED_PATH, controller) as string | undefined;
  if (controllerPath !== undefined) documentRoutes(controller as ControllerClass, controllerPath);
}
