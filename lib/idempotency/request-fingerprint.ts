import { createHash } from 'node:crypto';
import type { Request } from 'express';

/** JSON with every object's keys in order: the same parameters sent in another order match. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What a request asks: its method, path and parameters, hashed (SHA-256, hex). */
export function requestFingerprint(request: Pick<Request, 'method' | 'originalUrl' | 'body'>): string {
  const [path] = request.originalUrl.split('?');
  return createHash('sha256')
    .update(`${request.method} ${path}\n${canonicalJson(request.body ?? null)}`)
    .digest('hex');
}
