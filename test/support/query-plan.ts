import type { DataSource, QueryRunner } from 'typeorm';

/** A node of an EXPLAIN (FORMAT JSON) plan. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** A node of an EXPLAIN (ANALYZE, FORMAT JSON) plan, with what it read and threw away. */
export interface AnalyzedPlanNode extends PlanNode {
  'Actual Rows': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  /** Pages read, from the cache and from disk: index entries a scan passes over count here too. */
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: AnalyzedPlanNode[];
}

function nodes<T extends PlanNode>(plan: T): T[] {
  return [plan, ...((plan.Plans ?? []) as T[]).flatMap((child) => nodes(child))];
}

/** Every node of PostgreSQL's plan for `statement`, EXPLAINed with `options`. */
async function explained<T extends PlanNode>(
  on: DataSource | QueryRunner,
  options: string,
  statement: string,
  params: unknown[],
): Promise<T[]> {
  const [{ 'QUERY PLAN': plan }]: { 'QUERY PLAN': { Plan: T }[] }[] = await on.query(
    `EXPLAIN (${options}) ${statement}`,
    params,
  );
  return nodes(plan[0].Plan);
}

/** Every node of PostgreSQL's plan for `statement`, without running it. */
export function planNodes(dataSource: DataSource, statement: string, params: unknown[]): Promise<PlanNode[]> {
  return explained(dataSource, 'FORMAT JSON', statement, params);
}

/**
 * Every node of the plan PostgreSQL ran for `statement` (with the buffers it read), whose writes are
 * then rolled back. `generic`: the plan a prepared statement settles on after its first runs, made
 * for any values rather than these.
 */
export async function analyzedPlanNodes(
  dataSource: DataSource,
  statement: string,
  params: unknown[],
  { generic = false }: { generic?: boolean } = {},
): Promise<AnalyzedPlanNode[]> {
  const options = 'ANALYZE, BUFFERS, FORMAT JSON';
  const runner = dataSource.createQueryRunner();
  await runner.startTransaction();
  try {
    if (!generic) return await explained<AnalyzedPlanNode>(runner, options, statement, params);
    await runner.query('SET LOCAL plan_cache_mode = force_generic_plan');
    await runner.query(`PREPARE plan_probe AS ${statement}`);
    try {
      const values = params.map((value) => literal(value)).join(', ');
      return await explained<AnalyzedPlanNode>(runner, options, `EXECUTE plan_probe(${values})`, []);
    } finally {
      await runner.query('DEALLOCATE plan_probe');
    }
  } finally {
    await runner.rollbackTransaction();
    await runner.release();
  }
}

/** A value as SQL text, for EXECUTE's arguments (which take no bind parameters). */
function literal(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return literal(value.toISOString());
  if (Array.isArray(value)) return `ARRAY[${value.map((item) => literal(item)).join(', ')}]`;
  return `'${String(value).replace(/'/g, "''")}'`;
}
