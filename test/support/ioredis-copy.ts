import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type * as Ioredis from 'ioredis';

/** A second copy of ioredis, and how to remove it from the disk. */
export interface IoredisCopy {
  ioredis: typeof Ioredis;
  remove(): void;
}

/**
 * ioredis loaded a second time from a path of its own, so that Node holds it as a distinct module,
 * as it does a host's own node_modules/ioredis (another version, or npm nesting it): its classes
 * are not the module's. Its dependencies are the project's, as they may well be in a host.
 */
export function loadIoredisCopy(): IoredisCopy {
  const require = createRequire(import.meta.url);
  const original = dirname(require.resolve('ioredis/package.json'));
  const root = mkdtempSync(join(tmpdir(), 'ioredis-copy-'));
  const copy = join(root, 'node_modules', 'ioredis');
  cpSync(original, copy, { recursive: true, dereference: true });
  symlinkSync(dirname(original), join(copy, 'node_modules'));
  return {
    ioredis: require(copy) as typeof Ioredis,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
