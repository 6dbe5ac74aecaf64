import { Inject, Injectable } from '@nestjs/common';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ParameterInvalidError } from '../errors/api-error.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { CursorCodec, type CursorBinding, type CursorPosition } from './cursor-codec.js';
import type { ListEnvelope } from './list-envelope.js';
import type { ListParams } from './list-params.js';
import { measureInstead, type SizeBudget, type SizedPage, withinBudget } from './size-budget.js';
import { UNINDEXED_FILTER_WINDOW } from '../interview-api.tuning.js';

/** Entity properties the paginator scopes and orders by; the defaults fit the module's entities. */
export interface PaginatedColumns {
  id: string;
  accountId: string;
  livemode: string;
  createdAt: string;
}

export interface PageRequest<E extends ObjectLiteral> {
  /** The list's name, e.g. `events` or `webhook_endpoints/whk_...`; cursors are bound to it. */
  list: string;
  /** A query over the entity with the list's own filters applied; the paginator adds the rest. */
  query: SelectQueryBuilder<E>;
  params: ListParams;
  scope: { accountId: string; livemode: boolean };
  columns?: Partial<PaginatedColumns>;
  /**
   * A filter no index serves, read UNINDEXED_FILTER_WINDOW rows of the list at a time. The module's
   * own tuning (the condition is raw SQL), kept from hosts.
   * @internal
   */
  unindexed?: { condition: string; parameters: ObjectLiteral };
  /**
   * A bound on a page's size for lists of large rows, by the length of one text property. The
   * module's own tuning, kept from hosts.
   * @internal
   */
  sizeBudget?: SizeBudget<E>;
}

const DEFAULT_COLUMNS: PaginatedColumns = {
  id: 'id',
  accountId: 'accountId',
  livemode: 'livemode',
  createdAt: 'createdAt',
};
const CURSOR_COLUMN = 'cursor_created_at';
/** SQLite's datetime text of a whole second, as TypeORM writes it: `2026-01-08 10:00:28.000`. */
const WHOLE_SECOND_TEXT = /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\.000$/;

/**
 * A created_at bound, as the driver prepared it, in the form its column compares right: on SQLite a
 * whole second loses its `.000`, since a row stored as `...:28` sorts before `...:28.000` and would
 * fall on the wrong side of the bound.
 */
export function comparableBound(prepared: unknown): unknown {
  return typeof prepared === 'string' ? prepared.replace(WHOLE_SECOND_TEXT, '$1') : prepared;
}

/** What a list's cursors are bound to: the list, the key's account and mode, and the filters. */
export function cursorBinding(
  list: string,
  scope: { accountId: string; livemode: boolean },
  params: ListParams,
): CursorBinding {
  return {
    list,
    accountId: scope.accountId,
    livemode: scope.livemode,
    filters: {
      ...params.filters,
      created_gte: params.createdGte?.toISOString(),
      created_lt: params.createdLt?.toISOString(),
    },
  };
}

/**
 * The one paginator of every list: scoped to the key's account and mode, newest first, keyset on
 * (created_at, id) (never OFFSET), so that rows created while a client pages never shift a page.
 */
@Injectable()
export class Paginator {
  private readonly codec: CursorCodec;

  constructor(@Inject(INTERVIEW_API_OPTIONS) options: ResolvedOptions) {
    this.codec = new CursorCodec(options.cursorSecret);
  }

  async page<E extends ObjectLiteral, V>(
    request: PageRequest<E>,
    toView: (row: E) => V,
  ): Promise<ListEnvelope<V>> {
    const { query, params, scope } = request;
    const columns = { ...DEFAULT_COLUMNS, ...request.columns };
    const alias = query.alias;
    const metadata = query.expressionMap.mainAlias!.metadata;
    // A page is LIMIT rows of the query, and its cursor the last row: a join that can repeat an
    // entity (a to-many relation, or a join on a condition) would cut pages short and move cursors.
    const repeating = query.expressionMap.joinAttributes.find((join) => !join.relation || join.isMany);
    if (repeating) {
      throw new Error(
        `Paginator.page cannot page ${metadata.name} joined with "${repeating.alias.name}": a join that can ` +
          'repeat a row would skip or repeat items. Join to-one relations only; filter through others ' +
          'with a subquery (andWhere("EXISTS (...)")).',
      );
    }
    const createdAtColumn = metadata.findColumnWithPropertyPath(columns.createdAt);
    if (!createdAtColumn) throw new Error(`${metadata.name} has no property ${columns.createdAt}`);
    const driver = query.connection.driver;
    const createdAt = `${alias}.${columns.createdAt}`;
    const id = `${alias}.${columns.id}`;
    const binding = cursorBinding(request.list, scope, params);

    // TypeORM ANDs a condition onto the previous ones without brackets: the host's `a OR b` would
    // become `a OR (b AND account = ...)`, listing other accounts' rows. Its conditions are one term.
    const hostConditions = query.expressionMap.wheres;
    if (hostConditions.length > 0) {
      query.expressionMap.wheres = [
        { type: 'simple', condition: { operator: 'brackets', condition: hostConditions } },
      ];
    }
    query
      .andWhere(`${alias}.${columns.accountId} = :pageAccountId`, { pageAccountId: scope.accountId })
      .andWhere(`${alias}.${columns.livemode} = :pageLivemode`, { pageLivemode: scope.livemode });
    if (params.createdGte) {
      query.andWhere(`${createdAt} >= :pageCreatedGte`, {
        pageCreatedGte: comparableBound(driver.preparePersistentValue(params.createdGte, createdAtColumn)),
      });
    }
    if (params.createdLt) {
      query.andWhere(`${createdAt} < :pageCreatedLt`, {
        pageCreatedLt: comparableBound(driver.preparePersistentValue(params.createdLt, createdAtColumn)),
      });
    }
    const position = this.startBelow(params, binding);
    if (position) {
      query.andWhere(`(${createdAt}, ${id}) < (:pageCursorCreatedAt, :pageCursorId)`, {
        pageCursorCreatedAt: position.createdAt,
        pageCursorId: position.id,
      });
    }
    // The cursor keeps the database's own text of created_at: a JS Date would drop microseconds
    // and skip rows that share a millisecond. A timestamptz's text carries its offset, so a process
    // whose connections are on another TimeZone reads the same instant back.
    query
      .addSelect(`CAST(${createdAt} AS TEXT)`, CURSOR_COLUMN)
      .orderBy(createdAt, 'DESC')
      .addOrderBy(id, 'DESC')
      .take(undefined);
    let windowEnd: CursorPosition | null = null;
    if (request.unindexed) {
      windowEnd = await this.windowEnd(query, createdAt, id);
      if (windowEnd) {
        query.andWhere(`(${createdAt}, ${id}) >= (:pageWindowCreatedAt, :pageWindowId)`, {
          pageWindowCreatedAt: windowEnd.createdAt,
          pageWindowId: windowEnd.id,
        });
      }
      query.andWhere(request.unindexed.condition, request.unindexed.parameters);
    }
    if (request.sizeBudget) measureInstead(query, request.sizeBudget);
    query.limit(params.limit + 1);

    const { entities, raw } = await query.getRawAndEntities<Record<string, unknown>>();
    const listed = entities.slice(0, params.limit);
    const page: SizedPage<E> = request.sizeBudget
      ? await withinBudget(query, listed, raw, request.sizeBudget, columns.id)
      : { rows: listed, covered: listed.length };
    const next =
      entities.length > page.covered
        ? {
            createdAt: String(raw[page.covered - 1][CURSOR_COLUMN]),
            id: String(entities[page.covered - 1][columns.id]),
          }
        : windowEnd;
    return {
      object: 'list',
      data: page.rows.map(toView),
      has_more: next !== null,
      next_cursor: next && this.cursorAfter(next, binding),
    };
  }

  /**
   * Where the page asked for starts: below its cursor's position, or at the top (null). A cursor that
   * is not this list's, these filters', or not a cursor at all is refused.
   * @internal
   */
  startBelow(params: ListParams, binding: CursorBinding): CursorPosition | null {
    if (params.cursor === undefined) return null;
    const position = this.codec.decode(params.cursor, binding);
    if (!position) {
      throw new ParameterInvalidError(
        'cursor',
        'cursor is invalid: pass the next_cursor of the previous page, with the same filters.',
      );
    }
    return position;
  }

  /**
   * The cursor of the page after the one ending at `position`.
   * @internal
   */
  cursorAfter(position: CursorPosition, binding: CursorBinding): string {
    return this.codec.encode(position, binding);
  }

  /** The last row a page of an unindexed filter reads, if the list goes that far. */
  private async windowEnd<E extends ObjectLiteral>(
    query: SelectQueryBuilder<E>,
    createdAt: string,
    id: string,
  ): Promise<CursorPosition | null> {
    const row = await query
      .clone()
      .select(`CAST(${createdAt} AS TEXT)`, 'created_at')
      .addSelect(id, 'id')
      .offset(UNINDEXED_FILTER_WINDOW - 1)
      .limit(1)
      .getRawOne<{ created_at: unknown; id: unknown }>();
    return row ? { createdAt: String(row.created_at), id: String(row.id) } : null;
  }
}
