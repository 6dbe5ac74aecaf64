import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthenticatedApiKey } from '../auth/authenticated-api-key.js';
import { ResourceMissingError } from '../errors/api-error.js';
import type { ListEnvelope } from '../pagination/list-envelope.js';
import type { ListParams } from '../pagination/list-params.js';
import { Paginator } from '../pagination/paginator.js';
import { type ApiEvent, toApiEvent } from './api-event.js';
import { EventEntity } from './event.entity.js';
import { EventRetention } from './event-retention.js';

/** The event feed: the same events webhooks carry, sealed to the key's account and mode. */
@Injectable()
export class EventsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly paginator: Paginator,
    private readonly retention: EventRetention,
  ) {}

  list(key: AuthenticatedApiKey, params: ListParams): Promise<ListEnvelope<ApiEvent>> {
    const query = this.dataSource
      .getRepository(EventEntity)
      .createQueryBuilder('event')
      .where('event.createdAt >= :horizon', { horizon: this.retention.horizon() });
    if (params.filters.type !== undefined)
      query.andWhere('event.type = :type', { type: params.filters.type });
    return this.paginator.page({ list: 'events', query, params, scope: key }, toApiEvent);
  }

  async retrieve(key: AuthenticatedApiKey, id: string): Promise<ApiEvent> {
    const event = await this.find(key, id);
    return toApiEvent(event);
  }

  async find(key: AuthenticatedApiKey, id: string): Promise<EventEntity> {
    const event = await this.dataSource
      .getRepository(EventEntity)
      .createQueryBuilder('event')
      .where('event.id = :id', { id })
      .andWhere('event.accountId = :accountId', { accountId: key.accountId })
      .andWhere('event.livemode = :livemode', { livemode: key.livemode })
      .andWhere('event.createdAt >= :horizon', { horizon: this.retention.horizon() })
      .getOne();
    if (!event) throw new ResourceMissingError(`No such event: ${id}.`, 'id');
    return event;
  }
}
