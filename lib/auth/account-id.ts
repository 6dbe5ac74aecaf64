import { unstorableText } from '../request/storable-text.js';
import { ParameterInvalidError } from '../errors/api-error.js';

/** account_id is varchar(255). */
const MAX_ACCOUNT_ID_LENGTH = 255;

/**
 * Refuses (ParameterInvalidError, `accountId`) all but a non-empty string of at most 255 characters
 * stored as sent: no NUL, no lone surrogate, which would be stored as another account's id. Checked
 * before any query, where `undefined` would fail raw or, ignored, match every account.
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
