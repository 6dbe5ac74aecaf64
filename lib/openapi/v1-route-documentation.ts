import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import {
  ApiExtension,
  ApiHeader,
  ApiOperation,
  type ApiOperationOptions,
  type ApiResponseOptions,
  ApiSecurity,
  DECORATORS,
} from '@nestjs/swagger';
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

/**
 * Documents every route of a /v1 controller from what it declares: the bearer security with its
 * scopes (also as `x-required-scopes` and in the description), `Idempotency-Key` on POST, the error
 * envelope of each status the module's guard, interceptors and pipes may answer, and the headers of
 * a success. A status or description the route documents itself is kept. It reads @RequireScopes
 * written below @ApiV1Controller, as every module and README controller has it.
 */
export function DocumentV1Routes(controllerPath: string): ClassDecorator {
  return (controller) => {
    const prototype = controller.prototype as object;
    const classScopes = Reflect.getMetadata(REQUIRED_SCOPES, controller) as string[] | undefined;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
      const handler: unknown = descriptor?.value;
      if (descriptor === undefined || typeof handler !== 'function' || name === 'constructor') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      const handlerPath = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
      const route: DeclaredRoute = {
        method,
        hasPathParameter: `${controllerPath}/${handlerPath}`.includes(':'),
        scopes: (Reflect.getMetadata(REQUIRED_SCOPES, handler) as string[] | undefined) ?? classScopes ?? [],
      };
      const operation = (Reflect.getMetadata(DECORATORS.API_OPERATION, handler) ?? {}) as ApiOperationOptions;
      const responses = (Reflect.getMetadata(DECORATORS.API_RESPONSE, handler) ?? {}) as Record<
        string,
        ApiResponseOptions
      >;
      Reflect.defineMetadata(DECORATORS.API_RESPONSE, withSuccessHeaders(responses), handler);
      const decorators: MethodDecorator[] = [
        ApiOperation({
          ...operation,
          description: [operation.description, scopeSentence(route.scopes)].filter(Boolean).join('\n\n'),
        }),
        ApiSecurity(API_KEY_SECURITY, route.scopes),
        ApiExtension(REQUIRED_SCOPES_EXTENSION, route.scopes),
        ...errorStatuses(route)
          .filter((status) => responses[status] === undefined)
          .map((status) => ApiErrorResponse(status)),
      ];
      if (method === RequestMethod.POST) {
        decorators.push(
          ApiHeader({
            name: 'Idempotency-Key',
            required: false,
            description:
              'Retries with the same key, route and parameters within 24 hours get the first answer again ' +
              '(`Idempotent-Replayed: true`) and run nothing.',
            schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
          }),
        );
      }
      for (const decorate of decorators) decorate(prototype, name, descriptor);
    }
  };
}
