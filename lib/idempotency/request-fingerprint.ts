import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { carriesBody } from '../request/carries-body.js';

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

/** An empty object is no parameters, as the routes read it (no body, `{}`, no query, a bare `?`). */
function parametersOf(parameters: unknown): unknown {
  if (parameters === undefined) return null;
  if (
    parameters !== null &&
    typeof parameters === 'object' &&
    !Array.isArray(parameters) &&
    Object.keys(parameters).length === 0
  ) {
    return null;
  }
  return parameters;
}

/**
 * What a request asks, and who asks it: the calling API key's id, and the request's method, path,
 * query and body, hashed (SHA-256, hex), each as the routes read it. A trailing slash reaches the
 * same handler, so it asks the same; the query is taken as parsed, so its names may come in any
 * order while a repeated name's values stay in theirs. The key's id keeps another key of the
 * account from being answered what this one was (a new endpoint's secret, say) by reusing its
 * Idempotency-Key.
 */
export function requestFingerprint(
  apiKeyId: string,
  request: Pick<Request, 'method' | 'originalUrl' | 'query' | 'body'>,
): string {
  const [path] = request.originalUrl.split('?');
  const routed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  const query = canonicalJson(parametersOf(request.query));
  const body = canonicalJson(parametersOf(request.body));
  return createHash('sha256')
    .update(`${apiKeyId}\n${request.method} ${routed}\n${query}\n${body}`)
    .digest('hex');
}

/**
 * The media type of a body nothing has read before the handler, null when there is none: a route
 * that takes uploaded files parses its multipart body itself, later, so the fingerprint would see
 * no body and a different upload with the same key would be answered as the first. A body read to
 * its end (by a parser, or found empty) is known to the fingerprint.
 */
export function unreadBodyType(request: Pick<Request, 'headers' | 'readableEnded'>): string | null {
  if (!carriesBody(request) || request.readableEnded) return null;
  return request.headers['content-type']?.split(';')[0].trim() || 'without a Content-Type';
}
