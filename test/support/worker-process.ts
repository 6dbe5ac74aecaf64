import type { InterviewApiModuleOptions } from '../../lib/index.js';
import { TestDatabase, type TestDatabaseKind } from './database.js';
import { createTestHost } from './host-app.js';

/**
 * A delivery worker in a process of its own, on a test's database and queue, for tests that kill
 * it: `node --import ./register-typescript.mjs worker-process.ts <kind> <name> <webhooks JSON>`.
 */
const [kind, name, webhooks] = process.argv.slice(2);
await createTestHost({
  db: TestDatabase.existing(kind as TestDatabaseKind, name),
  keepDatabase: true,
  module: {
    worker: true,
    webhooks: JSON.parse(webhooks) as InterviewApiModuleOptions['webhooks'],
  },
});
process.send?.({ ready: true });
