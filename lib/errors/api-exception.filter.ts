import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { ApiError, InternalApiError, ParameterInvalidError, ResourceMissingError } from './api-error.js';

/**
 * Renders every failure of a module route in the error envelope. It is bound to the module's own
 * controllers (and to host controllers that opt in with @ApiV1Controller), never globally, so the
 * host's other routes keep their own error handling.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('InterviewApi');

  catch(exception: unknown, host: ArgumentsHost): void {
    const error = this.toApiError(exception);
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    response.status(error.status).json(error.toEnvelope());
  }

  private toApiError(exception: unknown): ApiError {
    if (exception instanceof ApiError) return exception;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) return new ResourceMissingError('Unrecognized request URL.');
      if (status === 429) {
        return new ApiError(429, 'rate_limit_error', 'rate_limited', 'Too many requests.');
      }
      if (status >= 400 && status < 500) return new ParameterInvalidError('body', 'The request is invalid.');
    }
    // Only unexpected failures reach here: log them for the operator, tell the client nothing internal.
    this.logger.error(
      exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
    );
    return new InternalApiError();
  }
}
