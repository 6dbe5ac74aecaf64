import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { containsNul } from '../database/nul-character.js';
import { containsUnpairedSurrogate } from '../database/unpaired-surrogate.js';
import { ResourceMissingError } from '../errors/api-error.js';

/**
 * A path id no stored object can have answers 404, as any unknown id does, without asking the
 * database: PostgreSQL would fail on the NUL character rather than find nothing, and half a
 * surrogate pair would be looked up as the replacement character the driver makes of it.
 * `@Param('id', new IdParamPipe('webhook endpoint'))`: the name is the one its service's 404 gives.
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
