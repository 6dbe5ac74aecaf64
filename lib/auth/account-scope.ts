import { ParameterInvalidError } from '../errors/api-error.js';
import { checkAccountId } from './account-id.js';

/** The account and mode an operation acts in; the calling key (`AuthenticatedApiKey`) is one. */
export interface AccountScope {
  accountId: string;
  livemode: boolean;
}

/**
 * The account and mode of a scope the host's code built, read once; refuses (ParameterInvalidError,
 * `accountId` or `livemode`) one built wrong, before any query: an undefined field, ignored by a
 * query, would match every account or both modes.
 */
export function validAccountScope(scope: AccountScope): AccountScope {
  const { accountId, livemode } = scope ?? {};
  checkAccountId(accountId);
  if (typeof livemode !== 'boolean')
    throw new ParameterInvalidError('livemode', 'livemode must be a boolean.');
  return { accountId, livemode };
}
