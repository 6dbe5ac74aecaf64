import { Get, Param, Post, Query } from '@nestjs/common';
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

@ApiV1Controller('webhook_endpoints/:id')
@RequireScopes('developers:manage')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Get('deliveries')
  list(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<ListEnvelope<DeliveryView>> {
    return this.deliveries.list(key, id, parseListParams(query, DELIVERY_FILTERS));
  }

  @Get('deliveries/:delivery_id')
  retrieve(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
    @Param('delivery_id', deliveryIdParam) deliveryId: string,
  ): Promise<DeliveryView> {
    return this.deliveries.retrieve(key, id, deliveryId);
  }

  @Post('deliveries/:delivery_id/replay')
  replay(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
    @Param('delivery_id', deliveryIdParam) deliveryId: string,
  ): Promise<DeliveryView> {
    return this.deliveries.replay(key, id, deliveryId);
  }

  @Post('test')
  test(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', endpointIdParam) id: string,
  ): Promise<DeliveryView> {
    return this.deliveries.test(key, id);
  }
}
