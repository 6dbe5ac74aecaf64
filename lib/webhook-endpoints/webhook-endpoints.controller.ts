import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiV1Controller } from '../auth/api-v1-controller.decorator.js';
import type { AuthenticatedApiKey } from '../auth/authenticated-api-key.js';
import { CurrentApiKey } from '../auth/current-api-key.decorator.js';
import { RequireScopes } from '../auth/require-scopes.decorator.js';
import type { DtoFields } from '../request/dto-fields.js';
import type { ListEnvelope } from '../pagination/list-envelope.js';
import { parseListParams } from '../pagination/list-params.js';
import type { CreateWebhookEndpointDto, UpdateWebhookEndpointDto } from './webhook-endpoint.dto.js';
import type { DeletedWebhookEndpoint, WebhookEndpointView } from './webhook-endpoint.view.js';
import { EndpointRegistry } from './endpoint-registry.js';
import { createEndpointBody, endpointIdParam, updateEndpointBody } from './webhook-endpoint.route-inputs.js';

@ApiV1Controller('webhook_endpoints')
@RequireScopes('developers:manage')
export class WebhookEndpointsController {
  constructor(private readonly endpoints: EndpointRegistry) {}

  @Post()
  create(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Body(createEndpointBody) body: DtoFields<CreateWebhookEndpointDto>,
  ): Promise<WebhookEndpointView> {
    return this.endpoints.create(key, body);
  }

  @Get()
  list(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Query() query: Record<string, unknown>,
  ): Promise<ListEnvelope<WebhookEndpointView>> {
    return this.endpoints.list(key, parseListParams(query));
  }

  @Get(':id')
  retrieve(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
  ): Promise<WebhookEndpointView> {
    return this.endpoints.retrieve(key, id);
  }

  @Patch(':id')
  update(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
    @Body(updateEndpointBody) body: DtoFields<UpdateWebhookEndpointDto>,
  ): Promise<WebhookEndpointView> {
    return this.endpoints.update(key, id, body);
  }

  @Delete(':id')
  remove(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
  ): Promise<DeletedWebhookEndpoint> {
    return this.endpoints.remove(key, id);
  }

  @Post(':id/rotate_secret')
  @HttpCode(200)
  rotateSecret(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
  ): Promise<WebhookEndpointView> {
    return this.endpoints.rotateSecret(key, id);
  }
}
