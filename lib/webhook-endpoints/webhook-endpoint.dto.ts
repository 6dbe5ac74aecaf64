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
import { MaxCharacters } from '../request/max-characters.decorator.js';
import type { CreateWebhookEndpointInput, UpdateWebhookEndpointInput } from './webhook-endpoint.input.js';

// Decorators apply from the property outwards, and with stopAtFirstError only the first failing
// rule answers: the type check sits nearest the property so that a value of the wrong type is told
// so (`url: 5` is "url must be a string", not a length), and the limits come after it.

const NO_EVENT_TYPES = 'enabled_events must list at least one event type, or be ["*"]';

export class CreateWebhookEndpointDto implements CreateWebhookEndpointInput {
  @IsDefined()
  @MaxCharacters(2048)
  @IsString()
  url!: string;

  @IsDefined()
  @ArrayMaxSize(100)
  @ArrayNotEmpty({ message: NO_EVENT_TYPES })
  @IsString({ each: true })
  @IsArray()
  enabled_events!: string[];

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

export class UpdateWebhookEndpointDto implements UpdateWebhookEndpointInput {
  @IfSent()
  @MaxCharacters(2048)
  @IsString()
  url?: string;

  @IfSent()
  @ArrayMaxSize(100)
  @ArrayNotEmpty({ message: NO_EVENT_TYPES })
  @IsString({ each: true })
  @IsArray()
  enabled_events?: string[];

  /** null clears the description. */
  @ValidateIf((_dto: UpdateWebhookEndpointDto, value: unknown) => value !== null && value !== undefined)
  @MaxCharacters(1024)
  @IsString()
  description?: string | null;

  @IfSent()
  @IsBoolean()
  disabled?: boolean;
}
