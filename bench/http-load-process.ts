import { httpLoad } from './http-load.js';

/** Runs one load in this process, apart from the host it loads, and reports it to the parent. */
const [url, authorization, seconds, connections] = process.argv.slice(2);
const run = await httpLoad(url, authorization, Number(seconds), Number(connections));
process.send?.({ run }, () => process.exit(0));
