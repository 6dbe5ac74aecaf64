import { type HttpLoad, httpLoad } from './http-load.js';

/**
 * Runs the loads the parent sends, one at a time, apart from the host it loads, and answers each:
 * one process for every load, so that every route meets the same warm client.
 */
process.on('message', (load: HttpLoad) => {
  void httpLoad(load).then(
    (run) => process.send?.({ run }),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
process.send?.({ ready: true });
