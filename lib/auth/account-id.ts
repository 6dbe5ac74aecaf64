import { unstorableText } from '../request/storable-text.js';
import { ParameterInvalidError } from '../errors/api-error.js';

/** account_id is varchar(255). */
const MAX_ACCOUNT_ID_LENGTH = 255;

/**
 * Refuses, with a ParameterInvalidError naming `accountId`, what cannot be the host's tenant id:
 * anything but a non-empty string of at most 255 characters without a NUL character (which
 * PostgreSQL cannot hold) or half of a surrogate pair (which each database would store as another
 * account's id: PostgreSQL writes U+FFFD for any half). Checked before any query: an `undefined` condition is a raw TypeORM
 * error or, on a DataSource whose invalidWhereValuesBehavior ignores it, no condition at all.
 */
export function checkAccountId(accountId: unknown): void {
  if (typeof accountId !== 'string' || accountId.length === 0) {
    throw new ParameterInvalidError('accountId', 'accountId must be a non-empty string.');
  }
  // The column counts characters; JavaScript counts UTF-16 units, two for some characters.
  if (accountId.length > MAX_ACCOUNT_ID_LENGTH && [...accountId].length > MAX_ACCOUNT_ID_LENGTH) {
    throw new ParameterInvalidError(
      'accountId',
      `accountId must be at most ${MAX_ACCOUNT_ID_LENGTH} characters.`,
    );
  }
  const unstorable = unstorableText(accountId, 'accountId');
  if (unstorable) throw unstorable;
}
