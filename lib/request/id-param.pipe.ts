import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { containsNul } from '../database/nul-character.js';
import { containsUnpairedSurrogate } from '../database/unpaired-surrogate.js';
import { ResourceMissingError } from '../errors/api-error.js';

/**
 * Answers 404, as any unknown id, a path id no stored object can have (a NUL, which PostgreSQL
 * fails on, or half a surrogate pair), without asking the database.
 * `@Param('id', new IdParamPipe('webhook endpoint'))`: the name its service's 404 gives.
 */
export class IdParamPipe implements PipeTransform<string, string> {
  constructor(private readonly objectName: string) {}

  transform(id: string, metadata: ArgumentMetadata): string {
    if (containsNul(id) || containsUnpairedSurrogate(id)) {
      throw new ResourceMissingError(`No such ${this.objectName}: ${id}.`, metadata.data ?? 'id');
    }
    return id;
  }
}
