import { DELIVERIES_TABLE as DELIVERIES } from './delivery.entity.js';

/**
 * PostgreSQL: a query that locks the rows of `table` (the deliveries unless named) whose ids `ids`
 * (an array expression) holds, in id order, for a statement that then updates them
 * (`id = ANY(ARRAY(SELECT id FROM <it>))`). An update locks its rows in the order its plan reads
 * them, which may be the order they are stored in: two statements that each lock many deliveries
 * (a purge, a drop of an endpoint's retries, a renewal of claims, a record) could then each hold
 * one the other waits for, and one of them fails with a deadlock. A soak of steady failures with a
 * short retention counted a few an hour.
 */
export const IN_ID_ORDER = (ids: string, table = DELIVERIES): string =>
  `SELECT id FROM ${table} WHERE id = ANY(${ids}) ORDER BY id FOR NO KEY UPDATE`;

/**
 * PostgreSQL: a condition, always true, that makes a statement of a WITH run after the one named
 * `cte` (which must return rows): the statements of a WITH otherwise run in no set order, and the
 * endpoints are to be locked before the deliveries, as every writer takes them.
 */
export const AFTER = (cte: string): string => `(SELECT COUNT(*) FROM ${cte}) >= 0`;
