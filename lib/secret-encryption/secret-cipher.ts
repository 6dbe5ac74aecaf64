import { EncryptionKey } from './encryption-key.js';

/** The option a stored value's key must be among, named in every error about one. */
const OPTION = 'webhooks.secretEncryptionKeys';
const PREFIX = 'enc:v1:';
/** `enc:v1:<key id>:<base64 of IV, tag and ciphertext>`. */
const ENCRYPTED = /^enc:v1:([0-9a-f]{8}):([A-Za-z0-9+/]+={0,2})$/;

/** A stored value that cannot be read: its key is not configured, or it was altered. */
export class SecretDecryptionError extends Error {
  /** `what` names the value: `The signing secret of webhook endpoint whk_...`, say. */
  constructor(what: string, problem: string) {
    super(`${what} cannot be decrypted: ${problem}`);
    this.name = 'SecretDecryptionError';
  }
}

/**
 * Secrets at rest (endpoints' signing secrets, kept idempotent answers). With keys, a value is
 * written AES-256-GCM encrypted under the first, as `enc:v1:<key id>:<base64>`, and read under
 * whichever key its id names; without, it is written as given. A value not in that form is read as
 * given either way, so that rows written before a key was configured stay readable.
 */
export class SecretCipher {
  private readonly byId: ReadonlyMap<string, EncryptionKey>;

  /** `keys` have distinct ids (the options check refuses a key given twice). */
  constructor(private readonly keys: readonly EncryptionKey[]) {
    this.byId = new Map(keys.map((key) => [key.id, key]));
  }

  /** Whether values are written encrypted. */
  get encrypts(): boolean {
    return this.keys.length > 0;
  }

  /** What every value encrypted under the first key starts with; null without keys. */
  get currentPrefix(): string | null {
    return this.keys.length > 0 ? `${PREFIX}${this.keys[0].id}:` : null;
  }

  /** The value as it is to be stored. */
  encrypt(plaintext: string): string {
    if (this.keys.length === 0) return plaintext;
    const header = `${PREFIX}${this.keys[0].id}`;
    return `${header}:${this.keys[0].seal(plaintext, header).toString('base64')}`;
  }

  /**
   * The stored value as written; throws a SecretDecryptionError, saying `what` it is, if it cannot
   * be read.
   */
  decrypt(stored: string, what = 'A stored webhook secret'): string {
    if (!isEncrypted(stored)) return stored;
    const parts = ENCRYPTED.exec(stored);
    if (parts === null) throw new SecretDecryptionError(what, 'it is not in the enc:v1 form.');
    const [, id, sealed] = parts;
    const key = this.byId.get(id);
    if (key === undefined) {
      throw new SecretDecryptionError(
        what,
        this.keys.length === 0
          ? `it is encrypted (key id ${id}) and ${OPTION} is not set. Configure the key it was encrypted with.`
          : `it is encrypted under key id ${id}, which is not among ${OPTION}. Configure that key again (after the first).`,
      );
    }
    try {
      return key.open(Buffer.from(sealed, 'base64'), `${PREFIX}${id}`);
    } catch {
      throw new SecretDecryptionError(
        what,
        `it fails its integrity check under key id ${id} (altered or truncated).`,
      );
    }
  }
}

/** How a decryption error names an endpoint's signing secret. */
export const endpointSecretName = (id: string): string => `The signing secret of webhook endpoint ${id}`;

/** How a decryption error names a kept idempotent answer. */
export const KEPT_ANSWER_NAME = 'A kept idempotent answer';

/** Whether a stored value is in the encrypted form (under any key). */
export function isEncrypted(stored: string): boolean {
  return stored.startsWith(PREFIX);
}
