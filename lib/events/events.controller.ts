import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiV1Controller } from '../auth/api-v1-controller.decorator.js';
import type { AuthenticatedApiKey } from '../auth/authenticated-api-key.js';
import { CurrentApiKey } from '../auth/current-api-key.decorator.js';
import { RequireScopes } from '../auth/require-scopes.decorator.js';
import { IdParamPipe } from '../request/id-param.pipe.js';
import type { ListEnvelope } from '../pagination/list-envelope.js';
import { parseListParams } from '../pagination/list-params.js';
import { EventSchema } from '../openapi/event.schema.js';
import { ApiListParameters } from '../openapi/list-parameters.decorator.js';
import { ApiListResponse } from '../openapi/list-envelope.schema.js';
import type { ApiEvent } from './api-event.js';
import { EventsService } from './events.service.js';

const eventIdParam = new IdParamPipe('event');

/** The events routes need developers:manage. */
@ApiV1Controller('events')
@RequireScopes('developers:manage')
@ApiTags('Events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listEvents',
    summary: 'List events',
    description: 'The events of the key’s account and mode within the retention, newest first.',
  })
  @ApiListParameters({
    name: 'type',
    schema: { type: 'string', minLength: 1, example: 'result.*' },
    description:
      'One event type, or a group ending in `.*` (`result.*`). A type that matches no known type is refused.',
  })
  @ApiListResponse(EventSchema, 'A page of events.')
  list(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Query() query: Record<string, unknown>,
  ): Promise<ListEnvelope<ApiEvent>> {
    return this.events.list(key, parseListParams(query, ['type']));
  }

  @Get(':id')
  @ApiOperation({ operationId: 'retrieveEvent', summary: 'Retrieve an event' })
  @ApiParam({ name: 'id', description: 'The event’s id (`evt_...`).', schema: { type: 'string' } })
  @ApiOkResponse({ type: EventSchema, description: 'The event, as its webhooks carry it.' })
  retrieve(
    @CurrentApiKey() key: AuthenticatedApiKey,
    @Param('id', eventIdParam) id: string,
  ): Promise<ApiEvent> {
    return this.events.retrieve(key, id);
  }
}
