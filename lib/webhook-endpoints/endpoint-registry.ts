import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { InjectInterviewDataSource } from '../database/interview-data-source.js';
import { DataSource } from 'typeorm';
import type { AccountScope } from '../auth/account-scope.js';
import { Clock } from '../clock/clock.js';
import { dropPendingRetries } from '../delivery-store/drop-pending-retries.js';
import { ENDPOINT_READ_MAX_AGE_MS } from '../interview-api.tuning.js';
import { ParameterInvalidError, ResourceMissingError } from '../errors/api-error.js';
import { EventTypes } from '../events/event-types.js';
import { webhookUrlRefusal } from '../http/index.js';
import { generateId } from '../identifiers/generate-id.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import type { ListEnvelope } from '../pagination/list-envelope.js';
import type { ListParams } from '../pagination/list-params.js';
import { Paginator } from '../pagination/paginator.js';
import { SecretCipher } from '../secret-encryption/secret-cipher.js';
import { generateWebhookSecret } from '../signing/index.js';
import type { CreateWebhookEndpointInput, UpdateWebhookEndpointInput } from './webhook-endpoint.input.js';
import { WebhookEndpointEntity } from './webhook-endpoint.entity.js';
import {
  type DeletedWebhookEndpoint,
  toWebhookEndpointView,
  type WebhookEndpointView,
} from './webhook-endpoint.view.js';
import { inTransaction } from '../database/in-transaction.js';
import { checkEndpointCap } from './endpoint-cap.js';

/**
 * A change to what a send uses (secret, URL, disabled, deleted) answers once no worker can still
 * start an attempt on a read of the endpoint taken before it: from the answer on, it holds for
 * every attempt, retries of older deliveries and deliveries already claimed included.
 */
const untilSendsSeeTheChange = (): Promise<void> => sleep(ENDPOINT_READ_MAX_AGE_MS);

/**
 * The endpoints of each account and mode, and their rules: the routes' and the delivery log's, and,
 * through WebhookEndpointsService, the host's. Its callers have validated what they pass.
 */
@Injectable()
export class EndpointRegistry {
  constructor(
    @InjectInterviewDataSource() private readonly dataSource: DataSource,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
    private readonly eventTypes: EventTypes,
    private readonly paginator: Paginator,
    private readonly clock: Clock,
    private readonly cipher: SecretCipher,
  ) {}

  async create(scope: AccountScope, input: CreateWebhookEndpointInput): Promise<WebhookEndpointView> {
    const now = this.clock.now();
    const secret = generateWebhookSecret();
    const endpoint = this.dataSource.getRepository(WebhookEndpointEntity).create({
      id: generateId('whk', now),
      accountId: scope.accountId,
      livemode: scope.livemode,
      url: this.validUrl(input.url),
      description: input.description ?? null,
      enabledEvents: this.validEventTypes(input.enabled_events),
      status: 'enabled',
      disabledReason: null,
      secret: this.cipher.encrypt(secret),
      failingSince: null,
      lastFailedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    await inTransaction(this.dataSource.manager, async (manager) => {
      await checkEndpointCap(manager, scope, this.options.webhooks.maxEndpoints);
      await manager.getRepository(WebhookEndpointEntity).insert(endpoint);
    });
    return toWebhookEndpointView(endpoint, { secret });
  }

  list(scope: AccountScope, params: ListParams): Promise<ListEnvelope<WebhookEndpointView>> {
    const query = this.dataSource.getRepository(WebhookEndpointEntity).createQueryBuilder('endpoint');
    return this.paginator.page({ list: 'webhook_endpoints', query, params, scope }, (endpoint) =>
      toWebhookEndpointView(endpoint),
    );
  }

  async retrieve(scope: AccountScope, id: string): Promise<WebhookEndpointView> {
    return toWebhookEndpointView(await this.find(scope, id));
  }

  async update(
    scope: AccountScope,
    id: string,
    input: UpdateWebhookEndpointInput,
  ): Promise<WebhookEndpointView> {
    const endpoint = await this.find(scope, id);
    // Every value is checked before anything is written: one bad field changes nothing.
    const changes: Partial<WebhookEndpointEntity> = {};
    // The stored url sent back unchanged is no change: it stays, whatever rules came after it.
    if (input.url !== undefined && input.url !== endpoint.url) changes.url = this.validUrl(input.url);
    if (input.enabled_events !== undefined) {
      const types = this.validEventTypes(input.enabled_events);
      if (JSON.stringify(types) !== JSON.stringify(endpoint.enabledEvents)) changes.enabledEvents = types;
    }
    if (input.description !== undefined && input.description !== endpoint.description) {
      changes.description = input.description;
    }
    const disabling = input.disabled === true && endpoint.status === 'enabled';
    if (disabling) {
      changes.status = 'disabled';
      changes.disabledReason = 'disabled_by_request';
    } else if (input.disabled === false && endpoint.status === 'disabled') {
      changes.status = 'enabled';
      changes.disabledReason = null;
      changes.failingSince = null;
    }
    if (Object.keys(changes).length === 0) return toWebhookEndpointView(endpoint);
    const now = this.clock.now();
    changes.updatedAt = now;
    // Only the changed columns are written: saving the whole row read above would put back a
    // secret that a concurrent rotate_secret has just replaced (or a worker's failing_since).
    await inTransaction(this.dataSource.manager, async (manager) => {
      const { affected } = await manager
        .getRepository(WebhookEndpointEntity)
        .update({ id: endpoint.id }, changes);
      if (affected === 0) throw this.missing(id);
      if (disabling) await dropPendingRetries(manager, endpoint.id, 'endpoint_disabled', now);
    });
    if (disabling || changes.url !== undefined) await untilSendsSeeTheChange();
    return toWebhookEndpointView(Object.assign(endpoint, changes));
  }

  async remove(scope: AccountScope, id: string): Promise<DeletedWebhookEndpoint> {
    const endpoint = await this.find(scope, id);
    await inTransaction(this.dataSource.manager, async (manager) => {
      await dropPendingRetries(manager, endpoint.id, 'endpoint_deleted', this.clock.now());
      await manager.getRepository(WebhookEndpointEntity).delete({ id: endpoint.id });
    });
    await untilSendsSeeTheChange();
    return { id: endpoint.id, object: 'webhook_endpoint', deleted: true };
  }

  /** Rotation: the old secret stops working at once, for retries of older deliveries too. */
  async rotateSecret(scope: AccountScope, id: string): Promise<WebhookEndpointView> {
    const endpoint = await this.find(scope, id);
    const secret = generateWebhookSecret();
    endpoint.secret = this.cipher.encrypt(secret);
    endpoint.updatedAt = this.clock.now();
    const { affected } = await this.dataSource
      .getRepository(WebhookEndpointEntity)
      .update({ id: endpoint.id }, { secret: endpoint.secret, updatedAt: endpoint.updatedAt });
    // Deleted since the look-up: the secret answered would be one no endpoint holds.
    if (affected === 0) throw this.missing(id);
    await untilSendsSeeTheChange();
    return toWebhookEndpointView(endpoint, { secret });
  }

  /** The endpoint, if it belongs to the scope's account and mode; anything else does not exist. */
  async find(scope: AccountScope, id: string): Promise<WebhookEndpointEntity> {
    const endpoint = await this.dataSource
      .getRepository(WebhookEndpointEntity)
      .findOne({ where: { id, accountId: scope.accountId, livemode: scope.livemode } });
    if (!endpoint) throw this.missing(id);
    return endpoint;
  }

  private missing(id: string): ResourceMissingError {
    return new ResourceMissingError(`No such webhook endpoint: ${id}.`, 'id');
  }

  private validUrl(url: string): string {
    const production = process.env.NODE_ENV === 'production';
    const problem = webhookUrlRefusal(url, this.options.webhooks.allowInsecureUrls, production);
    if (problem) throw new ParameterInvalidError('url', problem);
    return url;
  }

  private validEventTypes(types: string[]): string[] {
    if (types.includes('*')) {
      if (types.length !== 1) {
        throw new ParameterInvalidError(
          'enabled_events',
          'enabled_events must be exactly ["*"] to receive all events.',
        );
      }
      return ['*'];
    }
    const unknown = types.find((type) => !this.eventTypes.isKnown(type));
    if (unknown !== undefined) {
      throw new ParameterInvalidError(
        'enabled_events',
        `Unknown event type: ${unknown}. Known types: ${this.eventTypes.all.join(', ')}.`,
      );
    }
    return [...new Set(types)];
  }
}
