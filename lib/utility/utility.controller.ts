import { Get } from '@nestjs/common';
import { ApiKeysService } from '../auth/api-keys.service.js';
import { ApiV1Controller } from '../auth/api-v1-controller.decorator.js';
import type { AuthenticatedApiKey } from '../auth/authenticated-api-key.js';
import { CurrentApiKey } from '../auth/current-api-key.decorator.js';
import type { ApiKeyView } from '../auth/api-key.view.js';

/** `GET /v1/ping` and `GET /v1/me`: any valid key. */
@ApiV1Controller('')
export class UtilityController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get('ping')
  ping(@CurrentApiKey() key: AuthenticatedApiKey): { object: 'ping'; livemode: boolean } {
    return { object: 'ping', livemode: key.livemode };
  }

  @Get('me')
  async me(@CurrentApiKey() key: AuthenticatedApiKey): Promise<Omit<ApiKeyView, 'revoked_at'>> {
    const { revoked_at: _revoked, ...view } = await this.keys.retrieve(key.accountId, key.id);
    return view;
  }
}
