import { Get, Param, Query } from '@nestjs/common';
import { ApiV1Controller } from '../auth/api-v1-controller.decorator.js';
import type { AuthenticatedApiKey } from '../auth/authenticated-api-key.js';
import { CurrentApiKey } from '../auth/current-api-key.decorator.js';
import { RequireScopes } from '../auth/require-scopes.decorator.js';
import { IdParamPipe } from '../request/id-param.pipe.js';
import type { ListEnvelope } from '../pagination/list-envelope.js';
import { parseListParams } from '../pagination/list-params.js';
import type { ApiEvent } from './api-event.js';
import { EventsService } from './events.service.js';

const eventIdParam = new IdParamPipe('event');

/** The events routes need developers:manage. */
@ApiV1Controller('events')
@RequireScopes('developers:manage')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  list(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Query() query: Record<string, unknown>,
  ): Promise<ListEnvelope<ApiEvent>> {
    return this.events.list(key, parseListParams(query, ['type']));
  }

  @Get(':id')
  retrieve(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', eventIdParam) id: string,
  ): Promise<ApiEvent> {
    return this.events.retrieve(key, id);
  }
}
