import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ApiKeyView } from './api-key.view.js';
import { type Scope, SCOPES } from './scopes.js';

// The answers of GET /v1/ping and GET /v1/me as OpenAPI schemas (docs/api-contract.md, Routes).

@ApiSchema({ name: 'Ping', description: 'The answer of `GET /v1/ping`.' })
export class PingSchema {
  @ApiProperty({ type: 'string', enum: ['ping'] })
  object!: 'ping';

  @ApiProperty({ type: 'boolean', description: 'True for a live key, false for a test key.' })
  livemode!: boolean;
}

@ApiSchema({
  name: 'ApiKey',
  description: 'The calling API key: never the key itself, only its last four characters.',
})
export class CallingKeySchema implements Omit<ApiKeyView, 'revoked_at'> {
  @ApiProperty({ type: 'string', example: 'key_01kaqz3t4v8m2c7d5e9f0g1h2j' })
  id!: string;

  @ApiProperty({ type: 'string', enum: ['api_key'] })
  object!: 'api_key';

  @ApiProperty({ type: 'string' })
  name!: string;

  @ApiProperty({ type: 'string', description: 'The host’s tenant the key belongs to.' })
  account_id!: string;

  @ApiProperty({ type: 'boolean' })
  livemode!: boolean;

  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...SCOPES] } })
  scopes!: Scope[];

  @ApiProperty({ type: 'string', minLength: 4, maxLength: 4 })
  last4!: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  last_used_at!: string | null;
}
