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
