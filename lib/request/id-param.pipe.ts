import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { containsNul } from '../database/nul-character.js';
import { containsUnpairedSurrogate } from '../database/unpaired-surrogate.js';
import { ResourceMissingError } from '../errors/api-error.js';

/**
 * Answers 404, as any unknown id, an id no stored object can have (a NUL, which PostgreSQL fails
 * on, half a surrogate pair, or, given in the process, no string at all), without asking the database.
 * `@Param('id', new IdParamPipe('webhook endpoint'))`: the name its service's 404 gives.
 */
export class IdParamPipe implements PipeTransform<unknown, string> {
  constructor(private readonly objectName: string) {}

  transform(id: unknown, metadata: ArgumentMetadata): string {
    if (typeof id !== 'string' || containsNul(id) || containsUnpairedSurrogate(id)) {
      throw new ResourceMissingError(`No such ${this.objectName}: ${String(id)}.`, metadata.data ?? 'id');
    }
    return id;
  }
}
