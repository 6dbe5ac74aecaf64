import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { createValidationPipe } from './validation.pipe.js';

/** What @ApiV1Controller binds to every parameter of its routes, before the parameter's own pipe. */
const CONTROLLER_VALIDATION = createValidationPipe();

/** What Nest tells the pipes of `@Body(pipe) body: DtoFields<Dto>`. */
export const WHOLE_BODY: ArgumentMetadata = { type: 'body', metatype: Object, data: undefined };

/** What Nest tells the pipes of `@Query() query: Record<string, unknown>`. */
export const WHOLE_QUERY: ArgumentMetadata = { type: 'query', metatype: Object, data: undefined };

/** What Nest tells the pipes of `@Param(name, pipe) value: string`. */
export function pathParameter(name: string): ArgumentMetadata {
  return { type: 'param', metatype: String, data: name };
}

/**
 * `value` as a module route's handler receives it: through the controller's validation, then the
 * parameter's own pipe, told what Nest tells them, so that a call made in the process is refused
 * exactly as the route refuses the request.
 */
export async function asRouteReceives(
  value: unknown,
  metadata: ArgumentMetadata,
  pipe?: PipeTransform,
): Promise<unknown> {
  const validated: unknown = await CONTROLLER_VALIDATION.transform(value, metadata);
  return pipe === undefined ? validated : pipe.transform(validated, metadata);
}
