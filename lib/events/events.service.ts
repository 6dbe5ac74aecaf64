import { Injectable } from '@nestjs/common';
import { InjectInterviewDataSource } from '../database/interview-data-source.js';
import { DataSource } from 'typeorm';
import type { AuthenticatedApiKey } from '../auth/authenticated-api-key.js';
import { ParameterInvalidError, ResourceMissingError } from '../errors/api-error.js';
import type { ListEnvelope } from '../pagination/list-envelope.js';
import type { ListParams } from '../pagination/list-params.js';
import { Paginator } from '../pagination/paginator.js';
import { type ApiEvent, toApiEvent } from './api-event.js';
import { EventEntity } from './event.entity.js';
import { eventPage } from './event-page.js';
import { EventRetention } from './event-retention.js';
import { EventTypes } from './event-types.js';
import { EVENT_PAGE_CHARACTERS } from '../interview-api.tuning.js';

/** The event feed: the same events webhooks carry, sealed to the key's account and mode. */
@Injectable()
export class EventsService {
  constructor(
    @InjectInterviewDataSource() private readonly dataSource: DataSource,
    private readonly paginator: Paginator,
    private readonly retention: EventRetention,
    private readonly eventTypes: EventTypes,
  ) {}

  list(key: AuthenticatedApiKey, params: ListParams): Promise<ListEnvelope<ApiEvent>> {
    const types = params.filters.type === undefined ? null : this.typesSelected(params.filters.type);
    if (this.dataSource.options.type === 'postgres') {
      const horizon = this.retention.horizon();
      return eventPage(this.dataSource.manager, this.paginator, { key, params, horizon, types });
    }
    const query = this.dataSource
      .getRepository(EventEntity)
      .createQueryBuilder('event')
      .where('event.createdAt >= :horizon', { horizon: this.retention.horizon() });
    // A list of types rather than a pattern, so that the type index serves a group too.
    if (types !== null) query.andWhere('event.type IN (:...types)', { types });
    return this.paginator.page(
      {
        list: 'events',
        query,
        params,
        scope: key,
        sizeBudget: { property: 'payload', max: EVENT_PAGE_CHARACTERS },
      },
      toApiEvent,
    );
  }

  /** A filter selecting no known type is refused: a typo would otherwise list nothing, silently. */
  private typesSelected(filter: string): string[] {
    const types = this.eventTypes.selectedBy(filter);
    if (types.length === 0) {
      throw new ParameterInvalidError(
        'type',
        `No event type matches ${filter}. Give a known type (${this.eventTypes.all.join(', ')}) or a group of them such as result.*.`,
      );
    }
    return types;
  }

  async retrieve(key: AuthenticatedApiKey, id: string): Promise<ApiEvent> {
    const event = await this.find(key, id);
    return toApiEvent(event);
  }

  private async find(key: AuthenticatedApiKey, id: string): Promise<EventEntity> {
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
