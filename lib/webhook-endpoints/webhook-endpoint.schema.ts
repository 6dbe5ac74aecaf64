import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import type { WebhookEndpointStatus } from './webhook-endpoint.entity.js';
import type { DeletedWebhookEndpoint, WebhookEndpointView } from './webhook-endpoint.view.js';

// A webhook endpoint as the API returns it, as OpenAPI schemas (docs/api-contract.md, Webhook endpoint).

const DISABLED_REASONS = ['disabled_by_request', 'failing_for_too_long', 'endpoint_gone'];

@ApiSchema({ name: 'WebhookEndpoint', description: 'A webhook endpoint, without its secret.' })
export class WebhookEndpointSchema implements Omit<WebhookEndpointView, 'secret'> {
  @ApiProperty({ type: 'string', example: 'whk_01kaqz3t4v8m2c7d5e9f0g1h2j' })
  id!: string;

  @ApiProperty({ type: 'string', enum: ['webhook_endpoint'] })
  object!: 'webhook_endpoint';

  @ApiProperty({ type: 'string', example: 'https://hooks.example.com/interviews' })
  url!: string;

  @ApiProperty({ type: 'string', nullable: true })
  description!: string | null;

  @ApiProperty({
    type: 'array',
    items: { type: 'string' },
    description: 'The event types sent to it, or `["*"]` for all.',
    example: ['result.ready'],
  })
  enabled_events!: string[];

  @ApiProperty({ type: 'string', enum: ['enabled', 'disabled'] })
  status!: WebhookEndpointStatus;

  @ApiProperty({ type: 'boolean', description: 'Its mode: it receives the events of that mode only.' })
  livemode!: boolean;

  @ApiProperty({ type: 'string', format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  updated_at!: string;

  @ApiPropertyOptional({
    type: 'string',
    enum: DISABLED_REASONS,
    description: 'Only on a disabled endpoint.',
  })
  disabled_reason?: string;
}

@ApiSchema({
  name: 'WebhookEndpointWithSecret',
  description: 'A webhook endpoint with its signing secret: the answer of create and `rotate_secret` only.',
})
export class WebhookEndpointWithSecretSchema extends WebhookEndpointSchema {
  @ApiProperty({
    type: 'string',
    pattern: '^whsec_',
    description: 'The signing secret: `whsec_` and the base64 of 32 random bytes.',
  })
  secret!: string;
}

@ApiSchema({ name: 'DeletedWebhookEndpoint', description: 'The answer to a deletion.' })
export class DeletedWebhookEndpointSchema implements DeletedWebhookEndpoint {
  @ApiProperty({ type: 'string' })
  id!: string;

  @ApiProperty({ type: 'string', enum: ['webhook_endpoint'] })
  object!: 'webhook_endpoint';

  @ApiProperty({ type: 'boolean', enum: [true] })
  deleted!: true;
}
