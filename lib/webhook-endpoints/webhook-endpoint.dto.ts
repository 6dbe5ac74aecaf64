import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsDefined,
  IsOptional,
  IsString,
  ValidateIf,
} from 'class-validator';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { MaxCharacters } from '../request/max-characters.decorator.js';
import type { CreateWebhookEndpointInput, UpdateWebhookEndpointInput } from './webhook-endpoint.input.js';

// Decorators apply from the property outwards, and with stopAtFirstError only the first failing
// rule answers: the type check sits nearest the property so that a value of the wrong type is told
// so (`url: 5` is "url must be a string", not a length), and the limits come after it.

const NO_EVENT_TYPES = 'enabled_events must list at least one event type, or be ["*"]';

const URL_DESCRIPTION =
  'An absolute `https://` URL, without a user name or password; `http://` and private hosts only where the host allows them.';
const EVENTS_DESCRIPTION = 'The event types to send, each a known type, or exactly `["*"]` for all.';

@ApiSchema({ name: 'CreateWebhookEndpoint', description: 'The body of a webhook endpoint’s creation.' })
export class CreateWebhookEndpointDto implements CreateWebhookEndpointInput {
  @ApiProperty({ type: 'string', maxLength: 2048, description: URL_DESCRIPTION })
  @IsDefined()
  @MaxCharacters(2048)
  @IsString()
  url!: string;

  @ApiProperty({
    type: 'array',
    items: { type: 'string' },
    minItems: 1,
    maxItems: 100,
    description: EVENTS_DESCRIPTION,
    example: ['result.ready'],
  })
  @IsDefined()
  @ArrayMaxSize(100)
  @ArrayNotEmpty({ message: NO_EVENT_TYPES })
  @IsString({ each: true })
  @IsArray()
  enabled_events!: string[];

  @ApiPropertyOptional({ type: 'string', maxLength: 1024, nullable: true })
  @IsOptional()
  @MaxCharacters(1024)
  @IsString()
  description?: string | null;
}

/**
 * Validates a PATCH field whenever it is sent. IsOptional would also skip `null`, and a null url,
 * enabled_events or disabled would then reach the service (a 500, or a silent no-op).
 */
function IfSent(): PropertyDecorator {
  return ValidateIf((_dto: object, value: unknown) => value !== undefined);
}

@ApiSchema({ name: 'UpdateWebhookEndpoint', description: 'The fields of a webhook endpoint to change.' })
export class UpdateWebhookEndpointDto implements UpdateWebhookEndpointInput {
  @ApiPropertyOptional({ type: 'string', maxLength: 2048, description: URL_DESCRIPTION })
  @IfSent()
  @MaxCharacters(2048)
  @IsString()
  url?: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string' },
    minItems: 1,
    maxItems: 100,
    description: EVENTS_DESCRIPTION,
  })
  @IfSent()
  @ArrayMaxSize(100)
  @ArrayNotEmpty({ message: NO_EVENT_TYPES })
  @IsString({ each: true })
  @IsArray()
  enabled_events?: string[];

  /** null clears the description. */
  @ApiPropertyOptional({ type: 'string', maxLength: 1024, nullable: true, description: '`null` clears it.' })
  @ValidateIf((_dto: UpdateWebhookEndpointDto, value: unknown) => value !== null && value !== undefined)
  @MaxCharacters(1024)
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({
    type: 'boolean',
    description:
      '`true` disables the endpoint and drops its pending retries; `false` enables it again for new events.',
  })
  @IfSent()
  @IsBoolean()
  disabled?: boolean;
}
