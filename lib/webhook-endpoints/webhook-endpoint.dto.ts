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

export class UpdateWebhookEndpointDto {
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @IsOptional()
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

  @IsOptional()
  @IsBoolean()
  disabled?: boolean;
}
