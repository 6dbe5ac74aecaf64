import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Application, NextFunction, Request, Response } from 'express';
import { ParameterInvalidError, ResourceMissingError } from './api-error.js';

interface BodyParserError {
  type?: string;
}

/**
 * Answers in the module's envelope for /v1 requests that never reach a controller: an unknown
 * route (404 resource_missing) and a body the JSON parser refused (400 parameter_invalid).
 * Registered on init, after every controller route (the host's /v1 routes included) and before
 * Nest's own not-found handler, so it only sees what nobody else handles.
 */
@Injectable()
export class V1Fallback implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter || adapter.getType() !== 'express') return;
    const app = adapter.getInstance<Application>();
    app.use('/v1', (req: Request, res: Response) => {
      res
        .status(404)
        .json(
          new ResourceMissingError(
            `Unrecognized request URL (${req.method} ${req.originalUrl}).`,
          ).toEnvelope(),
        );
    });
    app.use('/v1', (err: unknown, _req: Request, res: Response, next: NextFunction) => {
      const type = (err as BodyParserError | null)?.type;
      if (type === 'entity.parse.failed') {
        res
          .status(400)
          .json(new ParameterInvalidError('body', 'The request body is not valid JSON.').toEnvelope());
      } else if (type === 'entity.too.large') {
        res
          .status(400)
          .json(new ParameterInvalidError('body', 'The request body is too large.').toEnvelope());
      } else {
        next(err);
      }
    });
  }
}
