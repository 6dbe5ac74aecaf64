import { rawPostLoop } from './raw-post-loop.js';

/** Runs (c) once in this process and reports the rate to the parent. */
const [url, total, concurrency, body] = process.argv.slice(2);
const perSecond = await rawPostLoop(url, Number(total), Number(concurrency), body);
process.send?.({ perSecond }, () => process.exit(0));
