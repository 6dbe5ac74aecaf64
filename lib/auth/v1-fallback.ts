import { Inject, Injectable, Logger, type OnModuleInit, RequestMethod } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
// Nest's own matcher of the global prefix's `exclude` (not exported from the package root): the
// fallback must place a path exactly where Nest maps the module's routes.
import { isRouteExcluded } from '@nestjs/core/router/utils/exclude-route.util.js';
import type { Application, NextFunction, Request, Response } from 'express';
import { ApiKeysService } from './api-keys.service.js';
import { authenticateRequest } from './authenticate-request.js';
import { RateLimiter } from './rate-limiter.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { ApiError, ParameterInvalidError, ResourceMissingError } from '../errors/api-error.js';
import { setRateLimitHeaders } from '../errors/rate-limit-headers.js';
import { sendApiError } from '../errors/send-api-error.js';
import { unexpectedFailure } from '../errors/unexpected-failure.js';

/** What body-parser (http-errors) and the router put on the errors they raise. */
interface MiddlewareError {
  type?: string;
  status?: number;
}

/** body-parser's error types, in the words a client can act on. */
const BODY_ERRORS: Readonly<Record<string, string>> = {
  'entity.parse.failed': 'The request body is not valid JSON.',
  'entity.too.large': 'The request body is too large.',
  'encoding.unsupported': 'The request body has an unsupported content encoding.',
  'charset.unsupported': 'The request body has an unsupported charset.',
  'parameters.too.many': 'The request body has too many parameters.',
};

/**
 * Answers, in the envelope and once the key is checked, the /v1 requests no controller reaches: an
 * unknown route (404) and a body or URL the middleware refused (400). Mounted after every controller
 * route and before Nest's not-found handler, so it sees only what nothing else handles.
 */
@Injectable()
export class V1Fallback implements OnModuleInit {
  private readonly logger = new Logger('InterviewApi');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: ApplicationConfig,
    private readonly keys: ApiKeysService,
    private readonly rateLimiter: RateLimiter,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter || adapter.getType() !== 'express') return;
    const app = adapter.getInstance<Application>();
    // The module's routes move under the host's global prefix (app.setGlobalPrefix('api')), set
    // before init, except those its `exclude` option matches: Nest tests each route's path and
    // method against it (RoutePathFactory, with isRouteExcluded), and so does the fallback with
    // the request's, so that it answers where a module route of that path would be mapped.
    const prefix = this.config.getGlobalPrefix().replace(/^\/+|\/+$/g, '');
    if (!prefix) {
      this.mount(app, '/v1', () => true);
      return;
    }
    const excluded = this.config.getGlobalPrefixOptions().exclude ?? [];
    const isOutsidePrefix = (req: Request): boolean =>
      isRouteExcluded(excluded, `/v1${req.path}`, routeMethodOf(req));
    this.mount(app, `/${prefix}/v1`, (req) => !isOutsidePrefix(req));
    if (excluded.length > 0) this.mount(app, '/v1', isOutsidePrefix);
  }

  /** Answers the requests under `path` that `owns` claims for the module, and passes on the rest. */
  private mount(app: Application, path: string, owns: (req: Request) => boolean): void {
    app.use(path, (req: Request, res: Response, next: NextFunction) => {
      if (!owns(req)) return next();
      this.answerOnceAuthenticated(
        req,
        res,
        () => new ResourceMissingError(`Unrecognized request URL (${req.method} ${req.originalUrl}).`),
      );
    });
    app.use(path, (err: unknown, req: Request, res: Response, next: NextFunction) => {
      // Express's own handler can only close a response that has started.
      if (res.headersSent || !owns(req)) return next(err);
      this.answerOnceAuthenticated(req, res, () => this.toApiError(err, res));
    });
  }

  /**
   * Answers `failure` to a request with a valid key within its rate, and the 401 or 429 to any
   * other: the key comes first on every /v1 request (docs/decisions.md, API keys), so one without a
   * valid key learns nothing of the routes or of what becomes of its body.
   */
  private answerOnceAuthenticated(req: Request, res: Response, failure: () => ApiError): void {
    authenticateRequest({ authorization: req.headers.authorization, ip: req.ip }, this.keys, this.rateLimiter)
      .then(
        ({ bucket }) => {
          if (bucket !== null) setRateLimitHeaders(res, bucket);
          return failure();
        },
        (error: unknown) => (error instanceof ApiError ? error : this.unexpected(error, res)),
      )
      .then((error) => sendApiError(res, error, this.options.serviceName))
      // The response was answered meanwhile by something else: nothing left to tell the client.
      .catch((error: unknown) => this.unexpected(error, res));
  }

  /**
   * Every error that reaches here came from a middleware (body parsing, URL decoding), never from
   * a controller: Nest's exception filters handle those. Each answers in the envelope, because
   * Express's and Nest's defaults would show a framework body or, outside production, a stack.
   */
  private toApiError(err: unknown, res: Response): ApiError {
    const { type, status } = (err ?? {}) as MiddlewareError;
    if (type !== undefined && BODY_ERRORS[type]) return new ParameterInvalidError('body', BODY_ERRORS[type]);
    if (typeof status === 'number' && status >= 400 && status < 500) {
      // The router's "Failed to decode param": a path segment that is not valid percent-encoding.
      if (err instanceof URIError) return new ParameterInvalidError('url', 'The request URL is malformed.');
      return new ParameterInvalidError('body', 'The request body could not be read.');
    }
    return this.unexpected(err, res);
  }

  private unexpected(err: unknown, res: Response): ApiError {
    return unexpectedFailure(this.logger, err, res);
  }
}

/**
 * The method of the route that would serve the request, as the global prefix's `exclude` names it:
 * Express serves HEAD with the GET route. A method Nest has no name for matches `RequestMethod.ALL`
 * exclusions only.
 */
function routeMethodOf(req: Request): RequestMethod | undefined {
  if (req.method === 'HEAD') return RequestMethod.GET;
  return RequestMethod[req.method as keyof typeof RequestMethod];
}
