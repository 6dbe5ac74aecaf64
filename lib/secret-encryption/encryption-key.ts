import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** AES-256 takes a key of 32 bytes. */
export const ENCRYPTION_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';

/** A sealed value's parts: the IV, the authentication tag and the ciphertext, in this order. */
type Sealed = Buffer;

/**
 * One key of `webhooks.secretEncryptionKeys`. Its material is held in a private field, so that
 * logging or serialising the resolved options shows its id only.
 */
export class EncryptionKey {
  /** The first 8 hex digits of the key's SHA-256: names the key in a stored value, reveals nothing of it. */
  readonly id: string;
  readonly #material: Buffer;

  /** `material` is copied: a host reusing its buffer changes nothing here. */
  constructor(material: Buffer) {
    if (material.length !== ENCRYPTION_KEY_BYTES) {
      throw new RangeError(`an encryption key must be ${ENCRYPTION_KEY_BYTES} bytes`);
    }
    this.#material = Buffer.from(material);
    this.id = createHash('sha256').update(this.#material).digest('hex').slice(0, 8);
  }

  /** AES-256-GCM under a fresh random IV, `aad` authenticated with it. */
  seal(plaintext: string, aad: string): Sealed {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#material, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
  }

  /** The plaintext `seal` sealed with the same `aad`; throws when anything of it was altered. */
  open(sealed: Sealed, aad: string): string {
    if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error('sealed value too short');
    const decipher = createDecipheriv(ALGORITHM, this.#material, sealed.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const plaintext = Buffer.concat([
      decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]);
    return plaintext.toString('utf8');
  }
}
