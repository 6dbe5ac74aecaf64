import type { ExecutionContext } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';

/** Handlers declaring one of these read the request themselves: whatever it carries may be theirs. */
const READS_THE_REQUEST = [RouteParamtypes.REQUEST, RouteParamtypes.RESPONSE, RouteParamtypes.RAW_BODY];

/** The kinds of argument each handler declares, read once: a handler's declaration never changes. */
const declarations = new WeakMap<object, ReadonlySet<number>>();

/** The kinds of argument a handler declares (`@Body()`, `@Query()`...), from Nest's route metadata. */
export function declaredArguments(context: ExecutionContext): ReadonlySet<number> {
  const handler = context.getHandler();
  let declared = declarations.get(handler);
  if (declared === undefined) {
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<
      string,
      unknown
    >;
    declared = new Set(Object.keys(args).map((key) => Number(key.split(':')[0])));
    declarations.set(handler, declared);
  }
  return declared;
}

/**
 * Whether the handler takes `@Req()`, `@Res()` or `@RawBody()`: it reads the request (or writes
 * the response) itself, so what the request carries, or how it is answered, may be its own.
 */
export function readsTheRequest(declared: ReadonlySet<number>): boolean {
  return READS_THE_REQUEST.some((type) => declared.has(type));
}

/** Handlers taking uploaded files get their body from an interceptor of their own, after the module's. */
const TAKES_FILES = [RouteParamtypes.FILE, RouteParamtypes.FILES];

/** Whether the handler takes `@UploadedFile()` or `@UploadedFiles()`: its body is an upload it reads. */
export function takesFiles(declared: ReadonlySet<number>): boolean {
  return TAKES_FILES.some((type) => declared.has(type));
}
