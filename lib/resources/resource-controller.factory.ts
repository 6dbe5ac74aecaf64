import { Get, type OnModuleInit, Param, Query, type Type } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type ObjectLiteral } from 'typeorm';
import { ApiV1Controller } from '../auth/api-v1-controller.decorator.js';
import type { AuthenticatedApiKey } from '../auth/authenticated-api-key.js';
import { CurrentApiKey } from '../auth/current-api-key.decorator.js';
import { RequireScopes } from '../auth/require-scopes.decorator.js';
import { ResourceMissingError } from '../errors/api-error.js';
import { IdParamPipe } from '../errors/id-param.pipe.js';
import { InvalidModuleOptionsError, type ResourceDefinition } from '../interview-api.options.js';
import type { ListEnvelope } from '../pagination/list-envelope.js';
import { parseListParams } from '../pagination/list-params.js';
import { Paginator } from '../pagination/paginator.js';
import { filterQueryName, toResourceView } from './resource-view.js';

type View = Record<string, unknown>;

/** `GET /v1/<path>` and `GET /v1/<path>/:id` over a host entity, scoped to the key's account and mode. */
export function createResourceController(definition: ResourceDefinition): Type<unknown> {
  const columns = {
    id: definition.columns?.id ?? 'id',
    accountId: definition.columns?.accountId ?? 'accountId',
    livemode: definition.columns?.livemode ?? 'livemode',
    createdAt: definition.columns?.createdAt ?? 'createdAt',
  };
  const filters = (definition.filters ?? []).map((property) => ({
    property,
    name: filterQueryName(property),
  }));
  const resourceIdParam = new IdParamPipe(definition.object);

  @ApiV1Controller(definition.path)
  @RequireScopes(definition.scope)
  class ResourceController implements OnModuleInit {
    constructor(
      @InjectDataSource() private readonly dataSource: DataSource,
      private readonly paginator: Paginator,
    ) {}

    /** A filter or column naming no column of the entity fails the boot, not every request. */
    onModuleInit(): void {
      const metadata = this.dataSource.getMetadata(definition.entity);
      const named = [...Object.values(columns), ...filters.map((filter) => filter.property)];
      const unknown = named.find((property) => !metadata.findColumnWithPropertyName(property));
      if (unknown !== undefined) {
        throw new InvalidModuleOptionsError(
          `resources (path "${definition.path}")`,
          `names "${unknown}", which is no column property of ${metadata.name}.`,
        );
      }
    }

    @Get()
    list(
      @CurrentApiKey() key: AuthenticatedApiKey,
      @Query() query: Record<string, unknown>,
    ): Promise<ListEnvelope<View>> {
      const params = parseListParams(
        query,
        filters.map((filter) => filter.name),
      );
      const builder = this.dataSource
        .getRepository<ObjectLiteral>(definition.entity)
        .createQueryBuilder('resource');
      for (const filter of filters) {
        const value = params.filters[filter.name];
        if (value !== undefined) {
          builder.andWhere(`resource.${filter.property} = :filter_${filter.name}`, {
            [`filter_${filter.name}`]: value,
          });
        }
      }
      return this.paginator.page(
        { list: definition.path, query: builder, params, scope: key, columns },
        (row) => toResourceView(definition, row),
      );
    }

    @Get(':id')
    async retrieve(
      @CurrentApiKey() key: AuthenticatedApiKey,
      @Param('id', resourceIdParam) id: string,
    ): Promise<View> {
      const row = await this.dataSource
        .getRepository<ObjectLiteral>(definition.entity)
        .createQueryBuilder('resource')
        .where(`resource.${columns.id} = :id`, { id })
        .andWhere(`resource.${columns.accountId} = :accountId`, { accountId: key.accountId })
        .andWhere(`resource.${columns.livemode} = :livemode`, { livemode: key.livemode })
        .getOne();
      if (!row) throw new ResourceMissingError(`No such ${definition.object}: ${id}.`, 'id');
      return toResourceView(definition, row);
    }
  }
  Object.defineProperty(ResourceController, 'name', { value: `${definition.object}ResourceController` });
  return ResourceController;
}
