import { type FactoryProvider, Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { INTERVIEW_DATA_SOURCE } from '../database/interview-data-source.js';
import { INSTALLATION_ID } from '../installation/installation-id.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { SecretCipher } from '../secret-encryption/secret-cipher.js';
import { encryptSecretsAtRest } from './secrets-at-rest.js';

const PLAINTEXT_NOTICE =
  'Webhook signing secrets are stored unencrypted: set webhooks.secretEncryptionKeys to encrypt them at rest.';

/**
 * The cipher of secrets at rest, once the stored ones are under its first key. After the schema
 * check (the installation id is read after it), and before anything that reads or writes a secret:
 * those take the cipher, so no send starts before the stored secrets are readable.
 */
export const SECRET_CIPHER_PROVIDER: FactoryProvider<SecretCipher> = {
  provide: SecretCipher,
  useFactory: async (options: ResolvedOptions, dataSource: DataSource): Promise<SecretCipher> => {
    const cipher = new SecretCipher(options.webhooks.secretEncryptionKeys);
    if (!cipher.encrypts && process.env.NODE_ENV === 'production') {
      new Logger('InterviewApi').warn(PLAINTEXT_NOTICE);
    }
    await encryptSecretsAtRest(dataSource, cipher);
    return cipher;
  },
  inject: [INTERVIEW_API_OPTIONS, INTERVIEW_DATA_SOURCE, INSTALLATION_ID],
};
