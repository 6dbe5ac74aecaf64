import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { containsNul } from '../database/nul-character.js';
import { ResourceMissingError } from '../errors/api-error.js';

/**
 * A path id no stored object can have answers 404, as any unknown id does, without asking the
 * database: PostgreSQL would fail on the NUL character rather than find nothing.
 * `@Param('id', new IdParamPipe('webhook endpoint'))`: the name is the one its service's 404 gives.
 */
export class IdParamPipe implements PipeTransform<string, string> {
  constructor(private readonly objectName: string) {}

  transform(id: string, metadata: ArgumentMetadata): string {
    if (containsNul(id)) {
      throw new ResourceMissingError(`No such ${this.objectName}: ${id}.`, metadata.data ?? 'id');
    }
    return id;
  }
}
