import { Get, type OnModuleInit, Param, Query, type Type } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { InjectInterviewDataSource } from '../database/interview-data-source.js';
import { DataSource } from 'typeorm';
import { ApiV1Controller } from '../auth/api-v1-controller.decorator.js';
import type { AuthenticatedApiKey } from '../auth/authenticated-api-key.js';
import { CurrentApiKey } from '../auth/current-api-key.decorator.js';
import { RequireScopes } from '../auth/require-scopes.decorator.js';
import type { ResourceDefinition } from '../interview-api.options.js';
import type { ListEnvelope } from '../pagination/list-envelope.js';
import { Paginator } from '../pagination/paginator.js';
import { IdParamPipe } from '../request/id-param.pipe.js';
import { listEnvelopeSchema } from '../openapi/list-envelope.schema.js';
import { ApiListParameters } from '../openapi/list-parameters.decorator.js';
import { resourceFilters, resourceItemSchema } from './resource-schema.js';
import { ResourceQuery, type ResourceView } from './resource-query.js';

/** `GET /v1/<path>` and `GET /v1/<path>/:id` over a host entity, scoped to the key's account and mode. */
export function createResourceController(definition: ResourceDefinition): Type<unknown> {
  const resourceIdParam = new IdParamPipe(definition.object);
  const item = resourceItemSchema(definition);
  const pascal = (name: string): string =>
    name.replace(/(?:^|_)([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

  @ApiV1Controller(definition.path)
  @RequireScopes(definition.scope)
  @ApiTags(definition.path)
  class ResourceController implements OnModuleInit {
    private readonly resources: ResourceQuery;

    constructor(@InjectInterviewDataSource() dataSource: DataSource, paginator: Paginator) {
      this.resources = new ResourceQuery(definition, dataSource, paginator);
    }

    onModuleInit(): void {
      this.resources.prepare();
    }

    @Get()
    @ApiOperation({ summary: `List ${definition.path}`, operationId: `list${pascal(definition.path)}` })
    @ApiListParameters(...resourceFilters(definition))
    @ApiOkResponse({ description: `A page of ${definition.path}.`, schema: listEnvelopeSchema(item) })
    list(
      @CurrentApiKey() key: AuthenticatedApiKey,
      @Query() query: Record<string, unknown>,
    ): Promise<ListEnvelope<ResourceView>> {
      return this.resources.list(key, query);
    }

    @Get(':id')
    @ApiOperation({
      summary: `Retrieve a ${definition.object}`,
      operationId: `retrieve${pascal(definition.object)}`,
    })
    @ApiParam({ name: 'id', description: `The ${definition.object}’s id.`, schema: { type: 'string' } })
    @ApiOkResponse({ description: `The ${definition.object}.`, schema: item })
    retrieve(
      @CurrentApiKey() key: AuthenticatedApiKey,
      @Param('id', resourceIdParam) id: string,
    ): Promise<ResourceView> {
      return this.resources.retrieve(key, id);
    }
  }
  Object.defineProperty(ResourceController, 'name', { value: `${definition.object}ResourceController` });
  return ResourceController;
}
