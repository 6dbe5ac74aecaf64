/** A statement of the module's hand-written SQL and its bind values. */
export interface Statement {
  sql: string;
  params: unknown[];
}
