import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsDefined,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';

export class CreateWebhookEndpointDto {
  @IsDefined()
  @IsString()
  @MaxLength(2048)
  url!: string;

  @IsDefined()
  @IsArray()
  @ArrayNotEmpty({ message: 'enabled_events must list at least one event type, or be ["*"]' })
  @ArrayMaxSize(100)
  @IsString({ each: true })
  enabled_events!: string[];

  @IsOptional()
  @IsString()
  @MaxLength(1024)
  description?: string | null;
}

/**
 * Validates a PATCH field whenever it is sent. IsOptional would also skip `null`, and a null url,
 * enabled_events or disabled would then reach the service (a 500, or a silent no-op).
 */
function IfSent(): PropertyDecorator {
  return ValidateIf((_dto: object, value: unknown) => value !== undefined);
}

export class UpdateWebhookEndpointDto {
  @IfSent()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @IfSent()
  @IsArray()
  @ArrayNotEmpty({ message: 'enabled_events must list at least one event type, or be ["*"]' })
  @ArrayMaxSize(100)
  @IsString({ each: true })
  enabled_events?: string[];

  /** null clears the description. */
  @ValidateIf((_dto: UpdateWebhookEndpointDto, value: unknown) => value !== null && value !== undefined)
  @IsString()
  @MaxLength(1024)
  description?: string | null;

  @IfSent()
  @IsBoolean()
  disabled?: boolean;
}
