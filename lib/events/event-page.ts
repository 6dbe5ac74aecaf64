import type { EntityManager } from 'typeorm';
import type { AuthenticatedApiKey } from '../auth/authenticated-api-key.js';
import { queryPrepared } from '../database/prepared-statement.js';
import { EVENT_PAGE, EVENT_PAGE_OF_TYPES } from '../delivery-store/postgres-statements.js';
import type { ListEnvelope } from '../pagination/list-envelope.js';
import type { ListParams } from '../pagination/list-params.js';
import { cursorBinding, type Paginator } from '../pagination/paginator.js';
import { fitting } from '../pagination/size-budget.js';
import { EVENT_PAGE_CHARACTERS } from '../interview-api.tuning.js';
import type { ApiEvent } from './api-event.js';

/** A row of EVENT_PAGE: the payload only where the page's budget may keep it. */
interface EventPageRow {
  id: string;
  /** created_at as the database's own text, which the next page's cursor carries. */
  position: string;
  payload: string | null;
}

/** What bounds the page: the key's feed, its filters, the oldest event still kept. */
export interface EventPageRequest {
  key: AuthenticatedApiKey;
  params: ListParams;
  horizon: Date;
  /** The types listed, or null for every type. */
  types: string[] | null;
}

/** The page starts below every row: a created_at past all others, and the least id. */
const TOP = { createdAt: 'infinity', id: '' };

/**
 * A page of the event feed on PostgreSQL in one prepared statement (EVENT_PAGE): the paginator's
 * keyset order, cursors and size budget, without a query builder or entities. A page ends before
 * the event that would take it past EVENT_PAGE_CHARACTERS of JSON (as a JS string counts them).
 */
export async function eventPage(
  manager: EntityManager,
  paginator: Paginator,
  { key, params, horizon, types }: EventPageRequest,
): Promise<ListEnvelope<ApiEvent>> {
  const binding = cursorBinding('events', key, params);
  // A cursor's position is always below created_lt: its page listed only rows below it.
  const below =
    paginator.startBelow(params, binding) ??
    (params.createdLt ? { createdAt: params.createdLt.toISOString(), id: '' } : TOP);
  const lowest = params.createdGte && params.createdGte > horizon ? params.createdGte : horizon;
  const values = [key.accountId, key.livemode, lowest, below.createdAt, below.id, EVENT_PAGE_CHARACTERS];
  const rows = await queryPrepared<EventPageRow>(
    manager,
    types === null ? EVENT_PAGE(params.limit) : EVENT_PAGE_OF_TYPES(params.limit),
    types === null ? values : [...values, types],
  );
  const payloads: string[] = [];
  for (const row of rows) {
    if (row.payload === null) break;
    payloads.push(row.payload);
  }
  const kept = fitting(
    payloads.map((payload) => payload.length),
    EVENT_PAGE_CHARACTERS,
  );
  const last = rows.length > kept ? rows[kept - 1] : undefined;
  return {
    object: 'list',
    data: payloads.slice(0, kept).map((payload) => JSON.parse(payload) as ApiEvent),
    has_more: last !== undefined,
    next_cursor: last ? paginator.cursorAfter({ createdAt: last.position, id: last.id }, binding) : null,
  };
}
