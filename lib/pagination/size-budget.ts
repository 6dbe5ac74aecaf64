import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

/** The properties of E that hold text. */
export type TextProperty<E> = { [K in keyof E]: E[K] extends string ? K : never }[keyof E] & string;

/**
 * A bound on a page's size for lists of large rows: the page ends before the row that would take
 * it past `max` characters (as a JS string counts them) of `property`, keeping at least one, with
 * `has_more` and a cursor there.
 */
export interface SizeBudget<E> {
  property: TextProperty<E>;
  max: number;
}

/** The rows a page keeps, and how many of the rows listed it covers: its cursor follows the last. */
export interface SizedPage<E> {
  rows: E[];
  covered: number;
}

const SIZE_COLUMN = 'page_row_size';

/** How many of the first `sizes` fit in `max` (one at least, if there is one). */
export function fitting(sizes: number[], max: number): number {
  let total = 0;
  for (let i = 0; i < sizes.length; i++) {
    total += sizes[i];
    if (total > max && i > 0) return i;
  }
  return sizes.length;
}

/**
 * Makes `query` read the length of the budgeted text in place of the text, so that the database
 * sends only the text of the rows the page can keep (docs/benchmarks.md).
 */
export function measureInstead<E extends ObjectLiteral>(
  query: SelectQueryBuilder<E>,
  budget: SizeBudget<E>,
): void {
  const alias = query.alias;
  const budgeted = `${alias}.${budget.property}`;
  const others = query.expressionMap
    .mainAlias!.metadata.columns.filter((column) => column.propertyPath !== budget.property)
    .map((column) => ({ selection: `${alias}.${column.propertyPath}` }));
  query.expressionMap.selects = query.expressionMap.selects.flatMap((select) => {
    if (select.selection === alias) return others;
    return select.selection === budgeted ? [] : [select];
  });
  query.addSelect(`LENGTH(${budgeted})`, SIZE_COLUMN);
}

/**
 * The rows of `listed` (`raw` its raw rows) a page keeps within `budget`. LENGTH counts code points,
 * never more than the JS length, so the rows fitting by it bound the page; only their text is read,
 * and the page ends where the JS lengths say. A row deleted between the two reads is left out.
 */
export async function withinBudget<E extends ObjectLiteral>(
  query: SelectQueryBuilder<E>,
  listed: E[],
  raw: Record<string, unknown>[],
  budget: SizeBudget<E>,
  idProperty: string,
): Promise<SizedPage<E>> {
  const reach = fitting(
    listed.map((_, i) => Number(raw[i][SIZE_COLUMN])),
    budget.max,
  );
  const candidates = listed.slice(0, reach);
  const texts = await textsOf(query, candidates, budget.property, idProperty);
  const present = candidates.filter((row) => texts.has(row[idProperty]));
  for (const row of present) Object.assign(row, { [budget.property]: texts.get(row[idProperty]) });
  const kept = fitting(
    present.map((row) => String(row[budget.property]).length),
    budget.max,
  );
  const rows = present.slice(0, kept);
  return { rows, covered: kept < present.length ? listed.indexOf(rows[kept - 1]) + 1 : reach };
}

/** The budgeted text of each of `rows`, by id, read through the list query's own query runner. */
async function textsOf<E extends ObjectLiteral>(
  query: SelectQueryBuilder<E>,
  rows: E[],
  property: string,
  idProperty: string,
): Promise<Map<unknown, unknown>> {
  if (rows.length === 0) return new Map();
  const alias = query.alias;
  const found = await query
    .createQueryBuilder()
    .select([`${alias}.${idProperty}`, `${alias}.${property}`])
    .from(query.expressionMap.mainAlias!.target, alias)
    .where(`${alias}.${idProperty} IN (:...pageIds)`, { pageIds: rows.map((row) => row[idProperty]) })
    .getMany();
  return new Map(found.map((row) => [row[idProperty], row[property]]));
}
