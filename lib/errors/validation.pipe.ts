import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { type ApiError, ParameterInvalidError, ParameterMissingError } from './api-error.js';

function firstLeaf(error: ValidationError, path: string): { param: string; error: ValidationError } {
  const param = path ? `${path}.${error.property}` : error.property;
  if (!error.constraints && error.children && error.children.length > 0) {
    return firstLeaf(error.children[0], param);
  }
  return { param, error };
}

/** class-validator failures become one typed error naming the first offending parameter. */
export function toParameterError(errors: ValidationError[]): ApiError {
  const { param, error } = firstLeaf(errors[0], '');
  const constraints = error.constraints ?? {};
  if (constraints.whitelistValidation) {
    return new ParameterInvalidError(param, `Received unknown parameter: ${param}.`);
  }
  if (constraints.isDefined) return new ParameterMissingError(param);
  const message = Object.values(constraints)[0] ?? `Invalid value for ${param}.`;
  return new ParameterInvalidError(param, message.endsWith('.') ? message : `${message}.`);
}

/** The module's body validation: unknown fields are refused, not ignored. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: toParameterError,
  });
}
