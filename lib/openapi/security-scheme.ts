import type { SecuritySchemeObject } from '@nestjs/swagger';

/** The name of the API key's security scheme, as `DocumentBuilder.addBearerAuth()` names it too. */
export const API_KEY_SECURITY = 'bearer';

/** How every /v1 request authenticates (docs/api-contract.md, Authentication). */
export const API_KEY_SECURITY_SCHEME: SecuritySchemeObject = {
  type: 'http',
  scheme: 'bearer',
  description:
    'An API key, `Authorization: Bearer <key>` (`<prefix>_test_...` or `<prefix>_live_...`). The key may ' +
    'instead be the user name of Basic credentials with no password (`curl -u <key>:`).',
};
