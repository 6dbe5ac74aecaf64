import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { Clock } from '../clock/clock.js';
import { DeliveryDispatcher } from '../deliveries/delivery-dispatcher.js';
import { DeliveryEntity } from '../deliveries/delivery.entity.js';
import { ParameterInvalidError } from '../errors/api-error.js';
import { generateId } from '../identifiers/generate-id.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { WebhookEndpointEntity } from '../webhook-endpoints/webhook-endpoint.entity.js';
import { AfterCommit } from './after-commit.js';
import type { ApiEvent } from './api-event.js';
import { EventEntity } from './event.entity.js';
import { EventTypes } from './event-types.js';
import type { PublishEventInput, PublishOptions } from './publish-event.input.js';

/** Where an event goes: every endpoint of its account and mode, or one endpoint (a test event). */
export type PublishTarget = { kind: 'subscribers' } | { kind: 'endpoint'; endpointId: string };

/**
 * The host's way in: stores an event and one pending delivery per matching endpoint in one
 * transaction (the outbox), then hands the deliveries to the dispatcher once that transaction has
 * committed. If the hand-off fails (Redis down), the rows are still there and the sweeper sends them.
 */
@Injectable()
export class EventPublisher {
  private readonly afterCommit: AfterCommit;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
    private readonly eventTypes: EventTypes,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly clock: Clock,
  ) {
    this.afterCommit = new AfterCommit(dataSource);
  }

  async publish(input: PublishEventInput, options: PublishOptions = {}): Promise<ApiEvent> {
    this.validate(input);
    return (await this.store(input, { kind: 'subscribers' }, options.manager)).event;
  }

  /** Publishes for the module itself (test events): the event and the created deliveries. */
  async store(
    input: PublishEventInput,
    target: PublishTarget,
    manager?: EntityManager,
  ): Promise<{ event: ApiEvent; deliveries: DeliveryEntity[] }> {
    const now = this.clock.now();
    const event: ApiEvent = {
      id: generateId('evt', now),
      object: 'event',
      type: input.type,
      api_version: this.options.apiVersion,
      livemode: input.livemode,
      created_at: now.toISOString(),
      data: { object: input.data },
    };
    const write = async (tx: EntityManager): Promise<DeliveryEntity[]> => {
      await tx.getRepository(EventEntity).insert({
        id: event.id,
        accountId: input.accountId,
        livemode: input.livemode,
        type: input.type,
        payload: JSON.stringify(event),
        createdAt: now,
      });
      const endpoints = await this.targets(tx, input, target);
      const deliveries = endpoints.map((endpointId) =>
        tx.getRepository(DeliveryEntity).create({
          id: generateId('dlv', now),
          accountId: input.accountId,
          livemode: input.livemode,
          endpointId,
          eventId: event.id,
          eventType: input.type,
          status: 'pending',
          attempt: 0,
          responseStatus: null,
          responseBody: null,
          error: null,
          durationMs: null,
          nextAttemptAt: now,
          lockedUntil: null,
          replayOf: null,
          createdAt: now,
          updatedAt: now,
        }),
      );
      if (deliveries.length > 0) await tx.getRepository(DeliveryEntity).insert(deliveries);
      return deliveries;
    };

    const hostTransaction = manager?.queryRunner?.isTransactionActive ? manager.queryRunner : undefined;
    if (hostTransaction && manager) {
      const deliveries = await write(manager);
      this.afterCommit.schedule(hostTransaction, () => this.dispatcher.dispatch(deliveries));
      return { event, deliveries };
    }
    const deliveries = await (manager ?? this.dataSource.manager).transaction(write);
    this.dispatcher.dispatch(deliveries);
    return { event, deliveries };
  }

  private async targets(
    tx: EntityManager,
    input: PublishEventInput,
    target: PublishTarget,
  ): Promise<string[]> {
    if (target.kind === 'endpoint') return [target.endpointId];
    const endpoints = await tx.getRepository(WebhookEndpointEntity).find({
      select: { id: true, enabledEvents: true },
      where: { accountId: input.accountId, livemode: input.livemode, status: 'enabled' },
    });
    return endpoints
      .filter(
        (endpoint) => endpoint.enabledEvents.includes('*') || endpoint.enabledEvents.includes(input.type),
      )
      .map((endpoint) => endpoint.id);
  }

  /** Refused before anything is written. */
  private validate(input: PublishEventInput): void {
    if (input === null || typeof input !== 'object')
      throw new ParameterInvalidError('input', 'input must be an object.');
    if (typeof input.accountId !== 'string' || input.accountId.length === 0) {
      throw new ParameterInvalidError('accountId', 'accountId must be a non-empty string.');
    }
    if (typeof input.livemode !== 'boolean')
      throw new ParameterInvalidError('livemode', 'livemode must be a boolean.');
    if (
      typeof input.type !== 'string' ||
      !this.eventTypes.isKnown(input.type) ||
      input.type === 'webhook.test'
    ) {
      throw new ParameterInvalidError(
        'type',
        `Unknown event type: ${String(input.type)}. Register host types with the eventTypes option.`,
      );
    }
    const data: unknown = input.data;
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      throw new ParameterInvalidError('data', 'data must be the resource object.');
    }
    const { id, object } = data as Record<string, unknown>;
    if (typeof id !== 'string' || id.length === 0 || typeof object !== 'string' || object.length === 0) {
      throw new ParameterInvalidError('data', 'data must have a string id and a string object.');
    }
  }
}
