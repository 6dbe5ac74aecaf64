import type { DataSource } from 'typeorm';

/** A node of an EXPLAIN (FORMAT JSON) plan. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** Every node of PostgreSQL's plan for `statement`, without running it. */
export async function planNodes(
  dataSource: DataSource,
  statement: string,
  params: unknown[],
): Promise<PlanNode[]> {
  const [{ 'QUERY PLAN': plan }]: { 'QUERY PLAN': { Plan: PlanNode }[] }[] = await dataSource.query(
    `EXPLAIN (FORMAT JSON) ${statement}`,
    params,
  );
  return nodes(plan[0].Plan);
}

/** A node of an EXPLAIN (ANALYZE, FORMAT JSON) plan, with what it read and threw away. */
export interface AnalyzedPlanNode extends PlanNode {
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  Plans?: AnalyzedPlanNode[];
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
    const [{ 'QUERY PLAN': plan }]: { 'QUERY PLAN': { Plan: AnalyzedPlanNode }[] }[] = await runner.query(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`,
      params,
    );
    return nodes(plan[0].Plan) as AnalyzedPlanNode[];
  } finally {
    await runner.rollbackTransaction();
    await runner.release();
  }
}
