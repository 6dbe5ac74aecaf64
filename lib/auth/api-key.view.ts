import type { ApiKeyEntity } from './api-key.entity.js';
import type { Scope } from './scopes.js';

/** How a key is listed to its owner: never the key, only its last four characters. */
export interface ApiKeyView {
  id: string;
  object: 'api_key';
  name: string;
  account_id: string;
  livemode: boolean;
  scopes: Scope[];
  last4: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function toApiKeyView(key: ApiKeyEntity): ApiKeyView {
  return {
    id: key.id,
    object: 'api_key',
    name: key.name,
    account_id: key.accountId,
    livemode: key.livemode,
    scopes: [...key.scopes],
    last4: key.last4,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt ? key.lastUsedAt.toISOString() : null,
    revoked_at: key.revokedAt ? key.revokedAt.toISOString() : null,
  };
}
