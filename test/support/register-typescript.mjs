// `node --import` this file to run the TypeScript sources in a child process of a test.
import { register } from 'node:module';

register('./typescript-hooks.mjs', import.meta.url);
