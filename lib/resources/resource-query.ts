import type { DataSource, ObjectLiteral } from 'typeorm';
import type { AuthenticatedApiKey } from '../auth/authenticated-api-key.js';
import { ParameterInvalidError, ResourceMissingError } from '../errors/api-error.js';
import { DEFAULT_OPTIONS } from '../interview-api.defaults.js';
import { InvalidModuleOptionsError, type ResourceDefinition } from '../interview-api.options.js';
import { MAX_CURSOR_ID_LENGTH } from '../pagination/cursor-codec.js';
import type { ListEnvelope } from '../pagination/list-envelope.js';
import { parseListParams } from '../pagination/list-params.js';
import type { Paginator } from '../pagination/paginator.js';
import { type ColumnValueParser, columnValueParser, typeName } from './column-value.js';
import { type ColumnFilter, filterCondition } from './filter-condition.js';
import { listIndexServes } from './filter-index.js';
import { filterQueryName, toResourceView } from './resource-view.js';

export type ResourceView = Record<string, unknown>;

/**
 * A filter as a list reads it: its column, its values' parser, and whether an index lists one value
 * in order.
 */
interface ParsedFilter extends ColumnFilter {
  parser: ColumnValueParser;
  indexed: boolean;
}

/** A host entity's list and retrieve, scoped to the calling key's account and mode. */
export class ResourceQuery {
  private readonly columns: { id: string; accountId: string; livemode: string; createdAt: string };
  private readonly filters: { property: string; name: string }[];
  /** The filters with the parsers of their values, and the parser of the public id. */
  private parsed: ParsedFilter[] = [];
  private idParser: ColumnValueParser = { expected: 'a string', parse: (raw) => raw };

  constructor(
    private readonly definition: ResourceDefinition,
    private readonly dataSource: DataSource,
    private readonly paginator: Paginator,
  ) {
    const columns = DEFAULT_OPTIONS['resources.columns'];
    this.columns = {
      id: definition.columns?.id ?? columns.id,
      accountId: definition.columns?.accountId ?? columns.accountId,
      livemode: definition.columns?.livemode ?? columns.livemode,
      createdAt: definition.columns?.createdAt ?? columns.createdAt,
    };
    this.filters = (definition.filters ?? DEFAULT_OPTIONS['resources.filters']).map((property) => ({
      property,
      name: filterQueryName(property),
    }));
  }

  /**
   * Checks the definition against the entity's metadata, so that a mistake fails the boot, not every
   * request: a name that is no column, an id longer than a cursor carries, an unfilterable column.
   */
  prepare(): void {
    const { definition, columns } = this;
    const metadata = this.dataSource.getMetadata(definition.entity);
    const refuse = (problem: string): never => {
      throw new InvalidModuleOptionsError(`resources (path "${definition.path}")`, problem);
    };
    const columnOf = (property: string) =>
      metadata.findColumnWithPropertyName(property) ??
      refuse(`names "${property}", which is no column property of ${metadata.name}.`);
    for (const property of Object.values(columns)) columnOf(property);
    const idLength = Number(columnOf(columns.id).length);
    if (idLength > MAX_CURSOR_ID_LENGTH) {
      refuse(
        `names "${columns.id}" as its id, a column of up to ${idLength} characters: a list cursor ` +
          `carries the last row's id, of up to ${MAX_CURSOR_ID_LENGTH}.`,
      );
    }
    this.parsed = this.filters.map((filter) => {
      const column = columnOf(filter.property);
      const parser =
        columnValueParser(column) ??
        refuse(
          `filters on "${filter.property}", a column of type ${column.isArray ? 'array' : typeName(column.type)}, ` +
            'which no filter reads: filters take text, integer, float, decimal, boolean, timestamp, date, ' +
            'uuid and enum columns.',
        );
      return { ...filter, column, parser, indexed: listIndexServes(metadata, columns, filter.property) };
    });
    this.idParser = columnValueParser(columnOf(columns.id)) ?? this.idParser;
  }

  /** A page of the key's rows, newest first, with the shared list parameters and the declared filters. */
  list(key: AuthenticatedApiKey, query: Record<string, unknown>): Promise<ListEnvelope<ResourceView>> {
    const { definition } = this;
    const params = parseListParams(
      query,
      this.filters.map((filter) => filter.name),
    );
    const builder = this.dataSource
      .getRepository<ObjectLiteral>(definition.entity)
      .createQueryBuilder('resource');
    // One filter at most is read through its index; the others are read within the Paginator's
    // window, as is a filter no index serves.
    let throughIndex = false;
    const unindexed: string[] = [];
    const parameters: Record<string, unknown> = {};
    for (const parsedFilter of this.parsed) {
      const { name, parser, indexed } = parsedFilter;
      const raw = params.filters[name];
      if (raw === undefined) continue;
      const value = parser.parse(raw);
      if (value === undefined) throw new ParameterInvalidError(name, `${name} must be ${parser.expected}.`);
      const filter = filterCondition(parsedFilter, value, this.dataSource.driver);
      if (indexed && !throughIndex) {
        throughIndex = true;
        builder.andWhere(filter.condition, filter.parameters);
      } else {
        unindexed.push(filter.condition);
        Object.assign(parameters, filter.parameters);
      }
    }
    return this.paginator.page(
      {
        list: definition.path,
        query: builder,
        params,
        scope: key,
        columns: this.columns,
        unindexed: unindexed.length > 0 ? { condition: unindexed.join(' AND '), parameters } : undefined,
      },
      (row) => toResourceView(definition, row),
    );
  }

  /** One of the key's rows by its public id. */
  async retrieve(key: AuthenticatedApiKey, id: string): Promise<ResourceView> {
    const { definition, columns } = this;
    const missing = new ResourceMissingError(`No such ${definition.object}: ${id}.`, 'id');
    // An id no row's id column can hold (not a uuid, say) is unknown, as any other unknown id.
    const value = this.idParser.parse(id);
    if (value === undefined) throw missing;
    const row = await this.dataSource
      .getRepository<ObjectLiteral>(definition.entity)
      .createQueryBuilder('resource')
      .where(`resource.${columns.id} = :id`, { id: value })
      .andWhere(`resource.${columns.accountId} = :accountId`, { accountId: key.accountId })
      .andWhere(`resource.${columns.livemode} = :livemode`, { livemode: key.livemode })
      .getOne();
    if (!row) throw missing;
    return toResourceView(definition, row);
  }
}
