import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { ApiKeysService, EventPublisher, WebhookEndpointEntity } from '../lib/index.js';
import { CursorCodec } from '../lib/pagination/cursor-codec.js';
import { bootBenchHost, CURSOR_SECRET } from './bench-host.js';
import { CountingLogger } from './counting-logger.js';
import { HandWrittenFeedController } from './hand-written-feed.controller.js';

/** What the parent needs to load the host's routes. */
export interface ApiHost {
  baseUrl: string;
  authorization: string;
  /** The cursor of the page that starts at `deepOffset`, newest first. */
  deepCursor: string;
  deepOffset: number;
  endpointId: string;
}

export interface HostCounters {
  statements: number;
  redisCommands: number;
}

const ACCOUNT = 'acct_bench';
/** Events published to the endpoint whose deliveries are listed: enough for a few full pages. */
const ENDPOINT_EVENTS = 100;

// Every command the host's Redis connections send (the limiter's script is one), counted in the
// process rather than on the server, which other work on the machine shares.
let redisCommands = 0;
const sendCommand = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<Redis['sendCommand']>) {
  redisCommands++;
  return sendCommand.apply(this, args);
};

const [schema, events] = [process.argv[2], Number(process.argv[3])];
const logger = new CountingLogger();
const app = await bootBenchHost(schema, { worker: false, createsSchema: true }, logger, {
  controllers: [HandWrittenFeedController],
  requestsPerSecond: 1_000_000,
});
await app.listen(0, '127.0.0.1');
const server = app.getHttpServer() as Server;
const { port } = server.address() as AddressInfo;

const publisher = app.get(EventPublisher);
const data = (n: number) => ({
  id: `res_${n}`,
  object: 'result',
  status: 'ready',
  score: 87,
  candidate: { name: 'Ada Lovelace' },
});
async function publish(count: number): Promise<void> {
  let next = 0;
  const publishing = async (): Promise<void> => {
    while (next < count) {
      const n = next++;
      await publisher.publish({ accountId: ACCOUNT, type: 'result.ready', livemode: true, data: data(n) });
    }
  };
  await Promise.all(Array.from({ length: 50 }, publishing));
}

await publish(events - ENDPOINT_EVENTS);
const dataSource = app.get(DataSource);
const now = new Date();
const endpointId = 'whk_bench000000';
await dataSource.getRepository(WebhookEndpointEntity).insert({
  id: endpointId,
  accountId: ACCOUNT,
  livemode: true,
  url: 'http://127.0.0.1:9/hook',
  description: null,
  enabledEvents: ['*'],
  status: 'enabled',
  disabledReason: null,
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  failingSince: null,
  createdAt: now,
  updatedAt: now,
});
await publish(ENDPOINT_EVENTS);
// Vacuumed as well as analyzed: autovacuum would otherwise vacuum the fresh rows during the loads,
// beside the routes it is measuring, and the first reads would set the rows' hint bits.
await dataSource.query('VACUUM ANALYZE');

const { key } = await app.get(ApiKeysService).create({
  accountId: ACCOUNT,
  name: 'bench',
  mode: 'live',
  scopes: ['developers:manage'],
  creatorScopes: ['developers:manage'],
});
const deepOffset = Math.round(events * 0.9);
const [deep] = await dataSource.query<{ created_at: string; id: string }[]>(
  `SELECT CAST(created_at AS TEXT) AS created_at, id FROM interview_events
   WHERE account_id = $1 AND livemode = true ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
  [ACCOUNT, deepOffset - 1],
);
const deepCursor = new CursorCodec(CURSOR_SECRET).encode(
  { createdAt: deep.created_at, id: deep.id },
  { list: 'events', accountId: ACCOUNT, livemode: true, filters: {} },
);
const ready: ApiHost = {
  baseUrl: `http://127.0.0.1:${port}`,
  authorization: `Bearer ${key}`,
  deepCursor,
  deepOffset,
  endpointId,
};
process.send?.({ ready });

process.on('message', (message: { type: 'reset' | 'counters' | 'stop' }) => {
  if (message.type === 'reset') {
    logger.reset();
    redisCommands = 0;
    process.send?.({ reset: true });
  } else if (message.type === 'counters') {
    const counters: HostCounters = {
      statements: logger.publisherStatements + logger.engineStatements,
      redisCommands,
    };
    process.send?.({ counters });
  } else {
    void app.close().then(() => process.send?.({ stopped: true }, () => process.exit(0)));
  }
});
