import type { Type } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { InvalidModuleOptionsError, type ResourceDefinition } from '../interview-api.options.js';

/**
 * The module's entities join the host's DataSource through TypeOrmModule.forFeature, which adds them
 * only with autoLoadEntities. A DataSource whose entities are listed by hand, without the module's,
 * started and then answered every /v1 request with a 500 (no metadata for ApiKeyEntity), and a
 * resource's entity missing from it failed in TypeORM's words, naming neither the resource nor the
 * way out: either start is refused here, saying what to add.
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
