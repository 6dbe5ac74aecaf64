import type { EntityMetadata } from 'typeorm';
import type { PaginatedColumns } from '../pagination/paginator.js';

/**
 * Whether the entity declares the index that lists one value of `property` in page order:
 * (accountId, livemode, property, createdAt, id), as the events' type filter has. Any other index
 * leaves a page of a rare value to read through every row of the list.
 */
export function listIndexServes(
  metadata: EntityMetadata,
  columns: PaginatedColumns,
  property: string,
): boolean {
  const wanted = [columns.accountId, columns.livemode, property, columns.createdAt, columns.id];
  // A partial index (`where`) lists some values only.
  return metadata.indices.some(
    (index) => !index.where && wanted.every((path, i) => index.columns[i]?.propertyPath === path),
  );
}
