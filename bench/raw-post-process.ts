import { rawPostLoop } from './raw-post-loop.js';

/** Runs (c) once in this process and reports the rate and the CPU it used to the parent. */
const [url, total, concurrency, body] = process.argv.slice(2);
const run = await rawPostLoop(url, Number(total), Number(concurrency), body);
process.send?.({ run }, () => process.exit(0));
