import type { Type } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { InvalidModuleOptionsError, type ResourceDefinition } from '../interview-api.options.js';

/**
 * Refuses the start, saying what to add, when the DataSource lacks metadata for the module's
 * entities or a resource's (entities listed by hand without them): otherwise every /v1 request
 * would answer 500, or fail in TypeORM's words naming neither the resource nor the fix.
 */
export function checkEntities(
  dataSource: DataSource,
  moduleEntities: readonly Type<unknown>[],
  resources: readonly ResourceDefinition[],
): void {
  const missing = moduleEntities.filter((entity) => !dataSource.hasMetadata(entity));
  if (missing.length > 0) {
    throw new Error(
      `nest-interview-api: the DataSource has no metadata for ${missing.map((entity) => entity.name).join(', ')}: ` +
        'give it autoLoadEntities: true, or add ...INTERVIEW_API_ENTITIES to its entities.',
    );
  }
  resources.forEach((resource, index) => {
    if (dataSource.hasMetadata(resource.entity)) return;
    throw new InvalidModuleOptionsError(
      `resources[${index}].entity`,
      `(path "${resource.path}") is ${resource.entity.name}, which the DataSource has no metadata for: ` +
        'with autoLoadEntities: true the module adds it; a DataSource whose entities are listed by hand ' +
        'must list it (a class decorated with @Entity).',
    );
  });
}
