import { Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiV1Controller } from '../auth/api-v1-controller.decorator.js';
import type { AuthenticatedApiKey } from '../auth/authenticated-api-key.js';
import { CurrentApiKey } from '../auth/current-api-key.decorator.js';
import { RequireScopes } from '../auth/require-scopes.decorator.js';
import type { ListEnvelope } from '../pagination/list-envelope.js';
import { parseListParams } from '../pagination/list-params.js';
import { endpointIdParam } from '../webhook-endpoints/webhook-endpoint.route-inputs.js';
import { DeliveriesService } from './deliveries.service.js';
import { DELIVERY_FILTERS, deliveryIdParam } from './delivery.route-inputs.js';
import type { DeliveryView } from './delivery.view.js';
import { ApiErrorResponse } from '../openapi/error-responses.js';
import { ApiListParameters } from '../openapi/list-parameters.decorator.js';
import { ApiListResponse } from '../openapi/list-envelope.schema.js';
import { DELIVERY_STATUSES, DeliverySchema, DeliveryWithAttemptsSchema } from './delivery.schema.js';

const CONFLICT_ON_A_DISABLED_ENDPOINT =
  'The endpoint is disabled, or a request with the same `Idempotency-Key` is still running.';

@ApiV1Controller('webhook_endpoints/:id')
@RequireScopes('developers:manage')
@ApiTags('Webhook deliveries')
@ApiParam({ name: 'id', description: 'The endpoint’s id (`whk_...`).', schema: { type: 'string' } })
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Get('deliveries')
  @ApiOperation({ operationId: 'listWebhookDeliveries', summary: 'List an endpoint’s deliveries' })
  @ApiListParameters(
    {
      name: 'status',
      schema: { type: 'string', enum: DELIVERY_STATUSES },
      description: 'Only deliveries in this state.',
    },
    {
      name: 'event_id',
      schema: { type: 'string', minLength: 1 },
      description: 'Only deliveries of this event.',
    },
  )
  @ApiListResponse(DeliverySchema, 'A page of deliveries, without their attempts.')
  list(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<ListEnvelope<DeliveryView>> {
    return this.deliveries.list(key, id, parseListParams(query, DELIVERY_FILTERS));
  }

  @Get('deliveries/:delivery_id')
  @ApiOperation({ operationId: 'retrieveWebhookDelivery', summary: 'Retrieve a delivery with its attempts' })
  @ApiParam({
    name: 'delivery_id',
    description: 'The delivery’s id (`dlv_...`).',
    schema: { type: 'string' },
  })
  @ApiOkResponse({ type: DeliveryWithAttemptsSchema, description: 'The delivery and every attempt made.' })
  retrieve(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
    @Param('delivery_id', deliveryIdParam) deliveryId: string,
  ): Promise<DeliveryView> {
    return this.deliveries.retrieve(key, id, deliveryId);
  }

  @Post('deliveries/:delivery_id/replay')
  @ApiOperation({
    operationId: 'replayWebhookDelivery',
    summary: 'Replay a delivery',
    description: 'A new delivery of the same event (same `webhook-id`), with `replay_of` set.',
  })
  @ApiParam({
    name: 'delivery_id',
    description: 'The delivery’s id (`dlv_...`).',
    schema: { type: 'string' },
  })
  @ApiCreatedResponse({ type: DeliverySchema, description: 'The new delivery.' })
  @ApiErrorResponse(409, {
    description: `${CONFLICT_ON_A_DISABLED_ENDPOINT} Also a delivery of a deleted endpoint.`,
  })
  replay(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
    @Param('delivery_id', deliveryIdParam) deliveryId: string,
  ): Promise<DeliveryView> {
    return this.deliveries.replay(key, id, deliveryId);
  }

  @Post('test')
  @ApiOperation({
    operationId: 'testWebhookEndpoint',
    summary: 'Send a test event to an endpoint',
    description:
      'Publishes a `webhook.test` event, whose `data.object` is the endpoint, and delivers it to this endpoint only.',
  })
  @ApiCreatedResponse({ type: DeliverySchema, description: 'The delivery of the new test event.' })
  @ApiErrorResponse(409, { description: CONFLICT_ON_A_DISABLED_ENDPOINT })
  test(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
  ): Promise<DeliveryView> {
    return this.deliveries.test(key, id);
  }
}
