import { Injectable, type PipeTransform } from '@nestjs/common';
import { type AccountScope, validAccountScope } from '../auth/account-scope.js';
import { DeliveriesService } from '../deliveries/deliveries.service.js';
import {
  DELIVERY_FILTERS,
  type DeliveryListQuery,
  deliveryIdParam,
} from '../deliveries/delivery.route-inputs.js';
import type { DeliveryView } from '../deliveries/delivery.view.js';
import type { ListEnvelope } from '../pagination/list-envelope.js';
import { type ListParams, type ListQuery, parseListParams } from '../pagination/list-params.js';
import { asRouteReceives, pathParameter, WHOLE_BODY, WHOLE_QUERY } from '../request/route-input.js';
import { EndpointRegistry } from '../webhook-endpoints/endpoint-registry.js';
import type {
  CreateWebhookEndpointInput,
  UpdateWebhookEndpointInput,
} from '../webhook-endpoints/webhook-endpoint.input.js';
import {
  createEndpointBody,
  endpointIdParam,
  updateEndpointBody,
} from '../webhook-endpoints/webhook-endpoint.route-inputs.js';
import type {
  DeletedWebhookEndpoint,
  WebhookEndpointView,
} from '../webhook-endpoints/webhook-endpoint.view.js';

// Each input goes through its route's own pipes; the path ids are checked before a body or query.

/** A route's body as its handler receives it, once `pipe` (its DTO's validation) has taken it. */
async function routeBody<Dto>(pipe: PipeTransform, input: unknown): Promise<Dto> {
  return (await asRouteReceives(input, WHOLE_BODY, pipe)) as Dto;
}

async function endpointId(id: unknown): Promise<string> {
  return (await asRouteReceives(id, pathParameter('id'), endpointIdParam)) as string;
}

async function deliveryIdOf(id: unknown): Promise<string> {
  return (await asRouteReceives(id, pathParameter('delivery_id'), deliveryIdParam)) as string;
}

/** A list's query as its route reads it: validated as sent, then parsed. */
async function listParams(query: ListQuery | null, filterNames: readonly string[] = []): Promise<ListParams> {
  const validated = (await asRouteReceives(query ?? {}, WHOLE_QUERY)) as Record<string, unknown>;
  return parseListParams(validated, filterNames);
}

/**
 * Webhook endpoints and their deliveries, managed from the host's own code (its dashboard, its jobs)
 * as its routes manage them: each method takes the account and mode, then what its route receives,
 * validated by that route's own pipes, and answers what the route answers or throws the ApiError
 * the route answers with (docs/host-integration.md, WebhookEndpointsService).
 */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly endpoints: EndpointRegistry,
    private readonly deliveries: DeliveriesService,
  ) {}

  /** POST /v1/webhook_endpoints: the answer carries the signing `secret`. */
  async create(scope: AccountScope, input: CreateWebhookEndpointInput): Promise<WebhookEndpointView> {
    const owner = validAccountScope(scope);
    return this.endpoints.create(
      owner,
      await routeBody<CreateWebhookEndpointInput>(createEndpointBody, input),
    );
  }

  /** GET /v1/webhook_endpoints. */
  async list(scope: AccountScope, query: ListQuery = {}): Promise<ListEnvelope<WebhookEndpointView>> {
    const owner = validAccountScope(scope);
    return this.endpoints.list(owner, await listParams(query));
  }

  /** GET /v1/webhook_endpoints/{id}. */
  async retrieve(scope: AccountScope, id: string): Promise<WebhookEndpointView> {
    const owner = validAccountScope(scope);
    return this.endpoints.retrieve(owner, await endpointId(id));
  }

  /** PATCH /v1/webhook_endpoints/{id}. */
  async update(
    scope: AccountScope,
    id: string,
    patch: UpdateWebhookEndpointInput,
  ): Promise<WebhookEndpointView> {
    const owner = validAccountScope(scope);
    const endpoint = await endpointId(id);
    const body = await routeBody<UpdateWebhookEndpointInput>(updateEndpointBody, patch);
    return this.endpoints.update(owner, endpoint, body);
  }

  /** DELETE /v1/webhook_endpoints/{id}. */
  async remove(scope: AccountScope, id: string): Promise<DeletedWebhookEndpoint> {
    const owner = validAccountScope(scope);
    return this.endpoints.remove(owner, await endpointId(id));
  }

  /** POST /v1/webhook_endpoints/{id}/rotate_secret: the answer carries the new `secret`. */
  async rotateSecret(scope: AccountScope, id: string): Promise<WebhookEndpointView> {
    const owner = validAccountScope(scope);
    return this.endpoints.rotateSecret(owner, await endpointId(id));
  }

  /** POST /v1/webhook_endpoints/{id}/test: a `webhook.test` event to this endpoint only. */
  async sendTest(scope: AccountScope, id: string): Promise<DeliveryView> {
    const owner = validAccountScope(scope);
    return this.deliveries.test(owner, await endpointId(id));
  }

  /** GET /v1/webhook_endpoints/{id}/deliveries. */
  async listDeliveries(
    scope: AccountScope,
    id: string,
    query: DeliveryListQuery = {},
  ): Promise<ListEnvelope<DeliveryView>> {
    const owner = validAccountScope(scope);
    const endpoint = await endpointId(id);
    return this.deliveries.list(owner, endpoint, await listParams(query, DELIVERY_FILTERS));
  }

  /** GET /v1/webhook_endpoints/{id}/deliveries/{delivery_id}, with every attempt. */
  async retrieveDelivery(scope: AccountScope, id: string, deliveryId: string): Promise<DeliveryView> {
    const owner = validAccountScope(scope);
    const endpoint = await endpointId(id);
    return this.deliveries.retrieve(owner, endpoint, await deliveryIdOf(deliveryId));
  }

  /** POST /v1/webhook_endpoints/{id}/deliveries/{delivery_id}/replay. */
  async replay(scope: AccountScope, id: string, deliveryId: string): Promise<DeliveryView> {
    const owner = validAccountScope(scope);
    const endpoint = await endpointId(id);
    return this.deliveries.replay(owner, endpoint, await deliveryIdOf(deliveryId));
  }
}
