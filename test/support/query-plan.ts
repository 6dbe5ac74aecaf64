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

/** Every node of the plan PostgreSQL ran for `statement`, whose writes are then rolled back. */
export async function analyzedPlanNodes(
  dataSource: DataSource,
  statement: string,
  params: unknown[],
): Promise<AnalyzedPlanNode[]> {
  const runner = dataSource.createQueryRunner();
  await runner.startTransaction();
  try {
    return await explained<AnalyzedPlanNode>(runner, 'ANALYZE, FORMAT JSON', statement, params);
  } finally {
    await runner.rollbackTransaction();
    await runner.release();
  }
}
