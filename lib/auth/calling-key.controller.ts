import { Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeysService } from './api-keys.service.js';
import { ApiV1Controller } from './api-v1-controller.decorator.js';
import type { AuthenticatedApiKey } from './authenticated-api-key.js';
import { CurrentApiKey } from './current-api-key.decorator.js';
import type { ApiKeyView } from './api-key.view.js';
import { CallingKeySchema, PingSchema } from './calling-key.schema.js';

/** `GET /v1/ping` and `GET /v1/me`: the calling key's mode and its description, for any valid key. */
@ApiV1Controller('')
@ApiTags('API key')
export class CallingKeyController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get('ping')
  @ApiOperation({
    operationId: 'ping',
    summary: 'Check an API key',
    description: 'Answers the mode of a valid key.',
  })
  @ApiOkResponse({ type: PingSchema, description: 'The key is valid.' })
  ping(@CurrentApiKey() key: AuthenticatedApiKey): { object: 'ping'; livemode: boolean } {
    return { object: 'ping', livemode: key.livemode };
  }

  @Get('me')
  @ApiOperation({ operationId: 'retrieveCallingKey', summary: 'Retrieve the calling API key' })
  @ApiOkResponse({ type: CallingKeySchema, description: 'The calling key, without the key itself.' })
  async me(@CurrentApiKey() key: AuthenticatedApiKey): Promise<Omit<ApiKeyView, 'revoked_at'>> {
    const { revoked_at: _revoked, ...view } = await this.keys.retrieve(key.accountId, key.id);
    return view;
  }
}
