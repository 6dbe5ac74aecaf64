import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ApiEvent } from '../events/api-event.js';

// An event as the events feed returns it and as webhooks carry it, byte for byte
// (docs/api-contract.md, Event): shared by the events routes and the webhooks section.

@ApiSchema({
  name: 'EventData',
  description:
    'What the event is about: `object` is the resource as the API returns it, at the time of the event.',
})
export class EventDataSchema {
  @ApiProperty({
    type: 'object',
    required: ['id', 'object'],
    properties: { id: { type: 'string' }, object: { type: 'string' } },
    additionalProperties: true,
  })
  object!: ApiEvent['data']['object'];
}

@ApiSchema({ name: 'Event', description: 'Something that happened, in the events feed and in webhooks.' })
export class EventSchema implements ApiEvent {
  @ApiProperty({ type: 'string', example: 'evt_01kaqz3t4v8m2c7d5e9f0g1h2j' })
  id!: string;

  @ApiProperty({ type: 'string', enum: ['event'] })
  object!: 'event';

  @ApiProperty({ type: 'string', example: 'result.ready', description: 'The event type.' })
  type!: string;

  @ApiProperty({ type: 'string', format: 'date', description: 'The host’s API version, a date.' })
  api_version!: string;

  @ApiProperty({ type: 'boolean' })
  livemode!: boolean;

  @ApiProperty({ type: 'string', format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: () => EventDataSchema })
  data!: EventDataSchema;
}
