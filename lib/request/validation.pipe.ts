import { type ArgumentMetadata, type Type, ValidationPipe, type ValidationError } from '@nestjs/common';
import { unstorableText } from './storable-text.js';
import {
  type ApiError,
  ParameterInvalidError,
  ParameterMissingError,
  UnknownParameterError,
} from '../errors/api-error.js';

function firstLeaf(error: ValidationError, path: string): { param: string; error: ValidationError } {
  const param = path ? `${path}.${error.property}` : error.property;
  if (!error.constraints && error.children && error.children.length > 0) {
    return firstLeaf(error.children[0], param);
  }
  return { param, error };
}

/** class-validator failures become one typed error naming the first offending parameter. */
function toParameterError(errors: ValidationError[]): ApiError {
  const { param, error } = firstLeaf(errors[0], '');
  const constraints = error.constraints ?? {};
  if (constraints.whitelistValidation) return new UnknownParameterError(param);
  if (constraints.isDefined) return new ParameterMissingError(param);
  const message = Object.values(constraints)[0] ?? `Invalid value for ${param}.`;
  return new ParameterInvalidError(param, message.endsWith('.') ? message : `${message}.`);
}

/**
 * Names Nest and class-transformer delete from a body before the whitelist sees it (they would
 * reach a prototype): unrefused, they would be the only unknown fields silently ignored.
 */
const SILENTLY_DROPPED = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * What the whitelist cannot catch in a body or query as sent: a silently dropped name, or a string
 * (value or name, at any depth, a host DTO's too) the databases cannot store as sent. Array entries
 * are named by their array, as class-validator names them.
 */
function rawInputProblem(input: unknown, root: string | undefined): ParameterInvalidError | null {
  // A stack, not recursion: a deeply nested body must not overflow the call stack.
  const pending: { value: unknown; param: string | undefined }[] = [{ value: input, param: root }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, param } = next;
    if (typeof value === 'string') {
      const problem = unstorableText(value, param ?? 'body');
      if (problem) return problem;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push({ value: item, param });
    } else if (value !== null && typeof value === 'object') {
      for (const [name, item] of Object.entries(value)) {
        const path = param === undefined ? name : `${param}.${name}`;
        if (SILENTLY_DROPPED.has(name)) return new UnknownParameterError(path);
        const problem = unstorableText(name, path);
        if (problem) return problem;
        pending.push({ value: item, param: path });
      }
    }
  }
  return null;
}

/**
 * The module's validation: unknown fields are refused, not ignored, and bodies and queries are
 * checked as sent.
 */
class ApiValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') {
      // A DTO describes an object. Given an array, class-validator answers "unknown parameter: 0",
      // or, for [], sees an object without fields: a missing url, or a PATCH that changes nothing.
      const validatedType = this.expectedType ? { ...metadata, metatype: this.expectedType } : metadata;
      const wholeBodyForDto = metadata.data === undefined && this.toValidate(validatedType);
      if (
        wholeBodyForDto &&
        value !== undefined &&
        (typeof value !== 'object' || value === null || Array.isArray(value))
      ) {
        throw new ParameterInvalidError('body', 'The request body must be a JSON object.');
      }
    }
    if (metadata.type === 'body' || metadata.type === 'query') {
      const problem = rawInputProblem(value, metadata.data);
      if (problem) throw problem;
    }
    return super.transform(value, metadata);
  }
}

function apiValidationPipe(expectedType: Type<object> | undefined): ValidationPipe {
  return new ApiValidationPipe({
    expectedType,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: toParameterError,
  });
}

/** The module's validation of every parameter of a controller, against its declared type. */
export function createValidationPipe(): ValidationPipe {
  return apiValidationPipe(undefined);
}

/**
 * The module's validation of one parameter against `dto`, named here rather than read from the
 * parameter's type: `@Body(validatedAs(Dto)) body: DtoFields<Dto>` keeps the class out of sight
 * of a host's global pipes, so that the module's own rules and errors answer for its routes.
 */
export function validatedAs(dto: Type<object>): ValidationPipe {
  return apiValidationPipe(dto);
}
