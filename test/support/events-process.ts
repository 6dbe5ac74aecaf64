import { Body, Controller, Inject, Post } from '@nestjs/common';
import { type ApiEvent, EventPublisher, type PublishEventInput } from '../../lib/index.js';
import { TestDatabase, type TestDatabaseKind } from './database.js';
import { createTestHost } from './host-app.js';

/** POST /host/events publishes its body, as a host publishes from its own code. */
@Controller('host/events')
class PublishController {
  constructor(@Inject(EventPublisher) private readonly publisher: EventPublisher) {}

  @Post()
  publish(@Body() input: PublishEventInput): Promise<ApiEvent> {
    return this.publisher.publish(input);
  }
}

/**
 * A host app in a process of its own, on a test's database and queue, for tests that run it in
 * another time zone: `TZ=<zone> node --import ./register-typescript.mjs events-process.ts <kind>
 * <name> <worker: true or false> [<its PostgreSQL connections' TimeZone>]`. Sends the parent the URL
 * it listens on.
 */
const [kind, name, worker, sessionTimeZone] = process.argv.slice(2);
const host = await createTestHost({
  db: TestDatabase.existing(kind as TestDatabaseKind, name),
  keepDatabase: true,
  controllers: [PublishController],
  module: { worker: worker === 'true' },
  timeZone: sessionTimeZone,
});
await host.app.listen(0, '127.0.0.1');
process.send?.({ url: await host.app.getUrl() });
