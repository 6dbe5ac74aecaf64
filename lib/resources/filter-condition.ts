import type { Driver, EntityMetadata, ObjectLiteral } from 'typeorm';
import { comparableBound } from '../pagination/paginator.js';

type ColumnMetadata = EntityMetadata['columns'][number];

/** A filter on one column: the entity property and its name in the query string. */
export interface ColumnFilter {
  property: string;
  name: string;
  column: ColumnMetadata;
}

/** A filter's condition on the list's rows, with the parameters it binds. */
export interface FilterCondition {
  condition: string;
  parameters: ObjectLiteral;
}

/**
 * The rows whose column holds a filter's parsed `value`, on the bare column so its index serves it.
 * An instant is bound as the driver writes the column, and at a whole second also as SQLite's
 * `datetime(...)` text without `.000`, so a row stored either way matches.
 */
export function filterCondition(
  { property, name, column }: ColumnFilter,
  value: unknown,
  driver: Driver,
): FilterCondition {
  const target = `resource.${property}`;
  const parameter = `filter_${name}`;
  if (!(value instanceof Date)) {
    return { condition: `${target} = :${parameter}`, parameters: { [parameter]: value } };
  }
  const written: unknown = driver.preparePersistentValue(value, column);
  const wholeSecond = comparableBound(written);
  if (wholeSecond === written) {
    return { condition: `${target} = :${parameter}`, parameters: { [parameter]: written } };
  }
  return {
    condition: `${target} IN (:${parameter}, :${parameter}_whole_second)`,
    parameters: { [parameter]: written, [`${parameter}_whole_second`]: wholeSecond },
  };
}
