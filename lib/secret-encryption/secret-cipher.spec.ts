import { createHash, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { EncryptionKey } from './encryption-key.js';
import { isEncrypted, SecretCipher, SecretDecryptionError } from './secret-cipher.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const newKey = (): EncryptionKey => new EncryptionKey(randomBytes(32));

/** The stored value with one byte of its sealed part (IV, tag or ciphertext) flipped. */
function flipped(stored: string, byte: number): string {
  const at = stored.lastIndexOf(':') + 1;
  const sealed = Buffer.from(stored.slice(at), 'base64');
  sealed[byte] ^= 0x01;
  return stored.slice(0, at) + sealed.toString('base64');
}

describe('SecretCipher', () => {
  it('round-trips a value, in the enc:v1 form under the first key, with a fresh IV each time', () => {
    const [first, second] = [newKey(), newKey()];
    const cipher = new SecretCipher([first, second]);
    const one = cipher.encrypt(SECRET);
    const two = cipher.encrypt(SECRET);
    expect(one).toMatch(new RegExp(`^enc:v1:${first.id}:[A-Za-z0-9+/]+={0,2}$`));
    expect(one).not.toContain(SECRET);
    expect(one).not.toEqual(two);
    expect(cipher.decrypt(one)).toBe(SECRET);
    expect(cipher.decrypt(two)).toBe(SECRET);
    expect(isEncrypted(one)).toBe(true);
    expect(cipher.currentPrefix).toBe(`enc:v1:${first.id}:`);
  });

  it('names a key by the first 8 hex digits of its SHA-256', () => {
    const material = randomBytes(32);
    expect(new EncryptionKey(material).id).toBe(
      createHash('sha256').update(material).digest('hex').slice(0, 8),
    );
  });

  it('decrypts with the key the value names, whichever place it has among the keys', () => {
    const [old, current] = [newKey(), newKey()];
    const underOld = new SecretCipher([old]).encrypt(SECRET);
    const rotated = new SecretCipher([current, old]);
    expect(rotated.decrypt(underOld)).toBe(SECRET);
    expect(rotated.encrypt(SECRET)).toMatch(new RegExp(`^enc:v1:${current.id}:`));
  });

  it('refuses a value whose key is not configured, naming the option and not trying another', () => {
    const underOther = new SecretCipher([newKey()]).encrypt(SECRET);
    const decrypt = (): string => new SecretCipher([newKey()]).decrypt(underOther, 'The secret of whk_1');
    expect(decrypt).toThrow(SecretDecryptionError);
    expect(decrypt).toThrow(/^The secret of whk_1 cannot be decrypted: .*webhooks\.secretEncryptionKeys/);
    expect(() => new SecretCipher([]).decrypt(underOther)).toThrow(
      /webhooks\.secretEncryptionKeys is not set/,
    );
  });

  it('detects a value altered in its IV, its tag, its ciphertext or its key id', () => {
    const key = newKey();
    const cipher = new SecretCipher([key]);
    const stored = cipher.encrypt(SECRET);
    for (const byte of [0, 11, 12, 27, 28, 40]) {
      expect(() => cipher.decrypt(flipped(stored, byte))).toThrow(/fails its integrity check/);
    }
    expect(() => cipher.decrypt(stored.slice(0, -8))).toThrow(SecretDecryptionError);
    // The key id is authenticated too: a value moved under another configured key's id fails.
    const other = newKey();
    const both = new SecretCipher([key, other]);
    expect(() => both.decrypt(stored.replace(key.id, other.id))).toThrow(/fails its integrity check/);
  });

  it('reads a value not in the encrypted form as it is, and writes as given without keys', () => {
    const plain = new SecretCipher([]);
    expect(plain.encrypts).toBe(false);
    expect(plain.currentPrefix).toBeNull();
    expect(plain.encrypt(SECRET)).toBe(SECRET);
    expect(new SecretCipher([newKey()]).decrypt(SECRET)).toBe(SECRET);
  });

  it('refuses a value that starts as encrypted but is not in the form', () => {
    expect(() => new SecretCipher([newKey()]).decrypt('enc:v1:zz')).toThrow(/not in the enc:v1 form/);
  });

  it('keeps the key material out of logs and JSON', () => {
    const material = randomBytes(32);
    const key = new EncryptionKey(material);
    const shown = `${inspect(key, { showHidden: true, depth: 5 })} ${JSON.stringify(key)}`;
    expect(shown).toContain(key.id);
    expect(shown).not.toContain(material.toString('hex'));
    expect(shown).not.toContain(material.toString('base64'));
    expect(shown).not.toMatch(/<Buffer/);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new EncryptionKey(randomBytes(16))).toThrow(RangeError);
  });
});
