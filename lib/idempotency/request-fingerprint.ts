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
 * SHA-256 (hex) of the calling key's id and the method, path, query and body as the routes read
 * them (a trailing slash, or names in another order, ask the same). The key's id keeps another key
 * of the account from being answered what this one was, a new endpoint's secret say.
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
 * The media type of a body still unread when the handler is reached (a multipart upload), else
 * null: the fingerprint cannot see such a body, so a different upload would match the first.
 */
export function unreadBodyType(request: Pick<Request, 'headers' | 'readableEnded'>): string | null {
  if (!carriesBody(request) || request.readableEnded) return null;
  return request.headers['content-type']?.split(';')[0].trim() || 'without a Content-Type';
}
