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

/** An empty JSON object is no body, as the routes read it. */
function parametersOf(body: unknown): unknown {
  if (body === undefined) return null;
  if (body !== null && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0) {
    return null;
  }
  return body;
}

/**
 * What a request asks: its method, path and parameters, hashed (SHA-256, hex). The path is taken
 * as routed: a trailing slash reaches the same handler, so it asks the same.
 */
export function requestFingerprint(request: Pick<Request, 'method' | 'originalUrl' | 'body'>): string {
  const [path] = request.originalUrl.split('?');
  const routed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return createHash('sha256')
    .update(`${request.method} ${routed}\n${canonicalJson(parametersOf(request.body))}`)
    .digest('hex');
}
