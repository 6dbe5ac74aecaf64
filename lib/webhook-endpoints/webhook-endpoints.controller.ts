import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiV1Controller } from '../auth/api-v1-controller.decorator.js';
import type { AuthenticatedApiKey } from '../auth/authenticated-api-key.js';
import { CurrentApiKey } from '../auth/current-api-key.decorator.js';
import { RequireScopes } from '../auth/require-scopes.decorator.js';
import type { DtoFields } from '../request/dto-fields.js';
import type { ListEnvelope } from '../pagination/list-envelope.js';
import { parseListParams } from '../pagination/list-params.js';
import { ApiErrorResponse } from '../openapi/error-responses.js';
import { ApiListParameters } from '../openapi/list-parameters.decorator.js';
import { ApiListResponse } from '../openapi/list-envelope.schema.js';
import { CreateWebhookEndpointDto, UpdateWebhookEndpointDto } from './webhook-endpoint.dto.js';
import {
  DeletedWebhookEndpointSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from './webhook-endpoint.schema.js';
import type { DeletedWebhookEndpoint, WebhookEndpointView } from './webhook-endpoint.view.js';
import { EndpointRegistry } from './endpoint-registry.js';
import { createEndpointBody, endpointIdParam, updateEndpointBody } from './webhook-endpoint.route-inputs.js';

const ENDPOINT_ID = {
  name: 'id',
  description: 'The endpoint’s id (`whk_...`).',
  schema: { type: 'string' as const },
};

@ApiV1Controller('webhook_endpoints')
@RequireScopes('developers:manage')
@ApiTags('Webhook endpoints')
export class WebhookEndpointsController {
  constructor(private readonly endpoints: EndpointRegistry) {}

  @Post()
  @ApiOperation({
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint',
    description: 'The answer is the only one, with `rotate_secret`’s, that shows the signing secret.',
  })
  @ApiBody({ type: CreateWebhookEndpointDto })
  @ApiCreatedResponse({
    type: WebhookEndpointWithSecretSchema,
    description: 'The new endpoint, with its secret.',
  })
  @ApiErrorResponse(400, {
    codes: ['parameter_invalid', 'parameter_missing'],
    description: 'A field is missing or wrong (`param` names it), or an unknown field was sent.',
  })
  @ApiErrorResponse(409, {
    description:
      'The account already has the most endpoints it may have in this mode, or a request with the same ' +
      '`Idempotency-Key` is still running.',
  })
  create(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Body(createEndpointBody) body: DtoFields<CreateWebhookEndpointDto>,
  ): Promise<WebhookEndpointView> {
    return this.endpoints.create(key, body);
  }

  @Get()
  @ApiOperation({ operationId: 'listWebhookEndpoints', summary: 'List webhook endpoints' })
  @ApiListParameters()
  @ApiListResponse(WebhookEndpointSchema, 'A page of endpoints, without their secrets.')
  list(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Query() query: Record<string, unknown>,
  ): Promise<ListEnvelope<WebhookEndpointView>> {
    return this.endpoints.list(key, parseListParams(query));
  }

  @Get(':id')
  @ApiParam(ENDPOINT_ID)
  @ApiOperation({ operationId: 'retrieveWebhookEndpoint', summary: 'Retrieve a webhook endpoint' })
  @ApiOkResponse({ type: WebhookEndpointSchema, description: 'The endpoint, without its secret.' })
  retrieve(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
  ): Promise<WebhookEndpointView> {
    return this.endpoints.retrieve(key, id);
  }

  @Patch(':id')
  @ApiParam(ENDPOINT_ID)
  @ApiOperation({
    operationId: 'updateWebhookEndpoint',
    summary: 'Update a webhook endpoint',
    description:
      'Changes the fields sent. Disabling drops its pending retries; a new `url`, a disable and a delete ' +
      'hold for every attempt from the answer on.',
  })
  @ApiBody({ type: UpdateWebhookEndpointDto })
  @ApiOkResponse({ type: WebhookEndpointSchema, description: 'The endpoint as updated.' })
  update(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
    @Body(updateEndpointBody) body: DtoFields<UpdateWebhookEndpointDto>,
  ): Promise<WebhookEndpointView> {
    return this.endpoints.update(key, id, body);
  }

  @Delete(':id')
  @ApiParam(ENDPOINT_ID)
  @ApiOperation({
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description: 'Drops its pending retries.',
  })
  @ApiOkResponse({ type: DeletedWebhookEndpointSchema, description: 'The endpoint is deleted.' })
  remove(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
  ): Promise<DeletedWebhookEndpoint> {
    return this.endpoints.remove(key, id);
  }

  @Post(':id/rotate_secret')
  @ApiParam(ENDPOINT_ID)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rotateWebhookEndpointSecret',
    summary: 'Rotate a webhook endpoint’s secret',
    description: 'From the answer on, every attempt is signed with the new secret only.',
  })
  @ApiOkResponse({ type: WebhookEndpointWithSecretSchema, description: 'The endpoint with its new secret.' })
  rotateSecret(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
  ): Promise<WebhookEndpointView> {
    return this.endpoints.rotateSecret(key, id);
  }
}
