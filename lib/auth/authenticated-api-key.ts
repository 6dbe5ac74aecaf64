import type { Scope } from './scopes.js';

/** The calling key as a controller sees it: everything it reads is scoped to account and mode. */
export interface AuthenticatedApiKey {
  id: string;
  accountId: string;
  livemode: boolean;
  scopes: readonly Scope[];
}
