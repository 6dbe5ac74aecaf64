import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A file of the page's public folder, with the content type it is served as. */
export interface DevelopersAsset {
  contentType: string;
  body: Buffer;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The public folder in the source tree: tsc does not copy .js, .css or .svg files into .demo-build. */
function publicFolder(): string {
  const candidates = [
    new URL('./public/', import.meta.url),
    new URL('../../../sample-app/developers/public/', import.meta.url),
  ].map((url) => fileURLToPath(url));
  const found = candidates.find((folder) => existsSync(join(folder, 'developers.js')));
  if (!found) throw new Error(`the Developers page's public folder is not in ${candidates.join(' or ')}`);
  return found;
}

/**
 * Every servable file of the public folder, by name, read once at start-up: a request names one of
 * these or gets 404, so no path from a request ever reaches the file system.
 */
export function loadDevelopersAssets(): ReadonlyMap<string, DevelopersAsset> {
  const folder = publicFolder();
  const assets = new Map<string, DevelopersAsset>();
  for (const name of readdirSync(folder)) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (contentType) assets.set(name, { contentType, body: readFileSync(join(folder, name)) });
  }
  return assets;
}
