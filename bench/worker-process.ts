import { CountingLogger } from './counting-logger.js';
import { bootBenchHost } from './bench-host.js';

/** A delivery worker in its own process (`worker: true`), as a host scales out. */
const schema = process.argv[2];
const logger = new CountingLogger();
const app = await bootBenchHost(schema, { worker: true, createsSchema: false }, logger);
process.send?.({ ready: true });
process.on('message', (message: { type: string }) => {
  if (message.type === 'reset') {
    logger.reset();
    process.send?.({ reset: true });
  } else if (message.type === 'stop') {
    const statements = logger.engineStatements;
    void app.close().then(() => {
      process.send?.({ statements });
      process.exit(0);
    });
  }
});
