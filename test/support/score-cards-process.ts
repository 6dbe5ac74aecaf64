import { TestDatabase, type TestDatabaseKind } from './database.js';
import { createTestHost } from './host-app.js';
import { SCORE_CARDS, ScoreCardEntity } from './score-card.entity.js';

/**
 * The score cards' host app in a process of its own, on a test's database, for tests that run it in
 * another time zone (`TZ`): `node --import ./register-typescript.mjs score-cards-process.ts <kind>
 * <name>`. Sends the parent the URL it listens on.
 */
const [kind, name] = process.argv.slice(2);
const host = await createTestHost({
  db: TestDatabase.existing(kind as TestDatabaseKind, name),
  keepDatabase: true,
  entities: [ScoreCardEntity],
  resources: [SCORE_CARDS],
  module: { worker: false },
});
await host.app.listen(0, '127.0.0.1');
process.send?.({ url: await host.app.getUrl() });
