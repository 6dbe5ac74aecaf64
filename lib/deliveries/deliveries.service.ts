import { Injectable } from '@nestjs/common';
import { InjectInterviewDataSource } from '../database/interview-data-source.js';
import { DataSource, type FindOperator, MoreThanOrEqual } from 'typeorm';
import type { AccountScope } from '../auth/account-scope.js';
import { Clock } from '../clock/clock.js';
import { ConflictError, ParameterInvalidError, ResourceMissingError } from '../errors/api-error.js';
import { EventPublisher } from '../events/event-publisher.js';
import { EventRetention } from '../events/event-retention.js';
import { generateId } from '../identifiers/generate-id.js';
import type { ListEnvelope } from '../pagination/list-envelope.js';
import type { ListParams } from '../pagination/list-params.js';
import { Paginator } from '../pagination/paginator.js';
import type { WebhookEndpointEntity } from '../webhook-endpoints/webhook-endpoint.entity.js';
import { EndpointRegistry } from '../webhook-endpoints/endpoint-registry.js';
import { AttemptEntity } from '../delivery-store/attempt.entity.js';
import { DeliveryDispatcher } from '../delivery-engine/delivery-dispatcher.js';
import { DeliveryEntity } from '../delivery-store/delivery.entity.js';
import { type DeliveryView, toDeliveryView } from './delivery.view.js';
import { PendingDeliveryEntity } from '../delivery-store/pending-delivery.entity.js';
import { inTransaction } from '../database/in-transaction.js';

const STATUSES = ['pending', 'succeeded', 'failed'];

/** An endpoint's deliveries log, replays and test events. */
@Injectable()
export class DeliveriesService {
  constructor(
    @InjectInterviewDataSource() private readonly dataSource: DataSource,
    private readonly endpoints: EndpointRegistry,
    private readonly retention: EventRetention,
    private readonly publisher: EventPublisher,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly paginator: Paginator,
    private readonly clock: Clock,
  ) {}

  async list(
    scope: AccountScope,
    endpointId: string,
    params: ListParams,
  ): Promise<ListEnvelope<DeliveryView>> {
    const endpoint = await this.endpoints.find(scope, endpointId);
    const { status, event_id: eventId } = params.filters;
    if (status !== undefined && !STATUSES.includes(status)) {
      throw new ParameterInvalidError('status', `status must be one of ${STATUSES.join(', ')}.`);
    }
    const query = this.dataSource
      .getRepository(DeliveryEntity)
      .createQueryBuilder('delivery')
      .where('delivery.endpointId = :endpointId', { endpointId: endpoint.id })
      .andWhere('delivery.eventId >= :visibleFrom', { visibleFrom: this.retention.visibleFromId() });
    if (eventId !== undefined) query.andWhere('delivery.eventId = :eventId', { eventId });
    // No index covers a delivery's state, so that its updates stay in place (DeliveryEntity).
    const unindexed =
      status === undefined ? undefined : { condition: 'delivery.status = :status', parameters: { status } };
    return this.paginator.page(
      { list: `webhook_endpoints/${endpoint.id}/deliveries`, query, params, scope, unindexed },
      (row) => toDeliveryView(row),
    );
  }

  async retrieve(scope: AccountScope, endpointId: string, deliveryId: string): Promise<DeliveryView> {
    const delivery = await this.find(scope, await this.endpoints.find(scope, endpointId), deliveryId);
    const attempts = await this.dataSource
      .getRepository(AttemptEntity)
      .find({ where: { deliveryId: delivery.id }, order: { attempt: 'ASC' } });
    return toDeliveryView(delivery, attempts);
  }

  /**
   * Replay: a new delivery of the same event (same event id), sent at once. A delivery
   * that is not there is missing whatever the state of its endpoint.
   */
  async replay(scope: AccountScope, endpointId: string, deliveryId: string): Promise<DeliveryView> {
    const endpoint = await this.replayTarget(scope, endpointId, deliveryId);
    const original = await this.find(scope, endpoint, deliveryId);
    this.sendable(endpoint);
    const now = this.clock.now();
    const replay = this.dataSource.getRepository(DeliveryEntity).create({
      ...original,
      id: generateId('dlv', now),
      status: 'pending',
      attempt: 0,
      responseStatus: null,
      responseBody: null,
      error: null,
      durationMs: null,
      nextAttemptAt: now,
      lockedUntil: null,
      replayOf: original.id,
      createdAt: now,
      updatedAt: now,
    });
    await inTransaction(this.dataSource.manager, async (manager) => {
      await manager.getRepository(DeliveryEntity).insert(replay);
      await manager
        .getRepository(PendingDeliveryEntity)
        .insert({ deliveryId: replay.id, nextAttemptAt: now, endpointId: replay.endpointId });
    });
    this.dispatcher.dispatch([replay]);
    return toDeliveryView(replay);
  }

  /** A `webhook.test` event to this endpoint only, whatever its enabled_events. */
  async test(scope: AccountScope, endpointId: string): Promise<DeliveryView> {
    const endpoint = this.sendable(await this.endpoints.find(scope, endpointId));
    const deliveryId = await inTransaction(this.dataSource.manager, async (manager) => {
      const { deliveryIds } = await this.publisher.store(
        {
          accountId: scope.accountId,
          livemode: scope.livemode,
          type: 'webhook.test',
          // The endpoint it tests, by id: its URL (a token in its query, say) would outlive a
          // change of it in the feed, and a replay would carry it to the new one.
          data: { id: endpoint.id, object: 'webhook_endpoint', livemode: endpoint.livemode },
        },
        { endpointId: endpoint.id },
        manager,
      );
      // Deleted since the look-up: the event went nowhere, and is rolled back with the refusal
      // rather than left in the feed.
      if (deliveryIds.length === 0) {
        throw new ResourceMissingError(`No such webhook endpoint: ${endpointId}.`, 'id');
      }
      return deliveryIds[0];
    });
    return toDeliveryView(await this.find(scope, endpoint, deliveryId));
  }

  /**
   * The endpoint to replay a delivery on. A deleted endpoint's deliveries stay until their events
   * expire, so replaying one of them is a conflict with the endpoint's state (docs/decisions.md, Errors),
   * not a missing delivery.
   */
  private async replayTarget(
    scope: AccountScope,
    endpointId: string,
    deliveryId: string,
  ): Promise<WebhookEndpointEntity> {
    try {
      return await this.endpoints.find(scope, endpointId);
    } catch (error) {
      if (!(error instanceof ResourceMissingError)) throw error;
      const { accountId, livemode } = scope;
      const repository = this.dataSource.getRepository(DeliveryEntity);
      const eventId = this.visibleEvents();
      if (await repository.existsBy({ id: deliveryId, endpointId, accountId, livemode, eventId })) {
        throw new ConflictError(
          `Webhook endpoint ${endpointId} is deleted; its deliveries cannot be replayed.`,
        );
      }
      throw error;
    }
  }

  private sendable(endpoint: WebhookEndpointEntity): WebhookEndpointEntity {
    if (endpoint.status !== 'enabled') {
      throw new ConflictError(`Webhook endpoint ${endpoint.id} is disabled; enable it first.`);
    }
    return endpoint;
  }

  private async find(
    scope: AccountScope,
    endpoint: WebhookEndpointEntity,
    deliveryId: string,
  ): Promise<DeliveryEntity> {
    const delivery = await this.dataSource.getRepository(DeliveryEntity).findOne({
      where: {
        id: deliveryId,
        endpointId: endpoint.id,
        accountId: scope.accountId,
        livemode: scope.livemode,
        eventId: this.visibleEvents(),
      },
    });
    if (!delivery) throw new ResourceMissingError(`No such webhook delivery: ${deliveryId}.`, 'delivery_id');
    return delivery;
  }

  /** A delivery goes with its event, which disappears at the retention horizon. */
  private visibleEvents(): FindOperator<string> {
    return MoreThanOrEqual(this.retention.visibleFromId());
  }
}
