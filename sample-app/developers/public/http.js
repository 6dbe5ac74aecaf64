// Requests: the host's own dashboard routes, and /v1 with the page's key, as a customer's code calls it.
import { state } from './state.js';

/** An answer in the API's error envelope, or a failure to get one. */
class ApiRequestError extends Error {
  constructor(status, code, message, param) {
    super(message);
    this.status = status;
    this.code = code;
    this.param = param;
  }
}

/** A fresh Idempotency-Key: 128 random bits (crypto.randomUUID needs a secure context). */
function idempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

async function request(method, url, body, key) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (key !== undefined) {
    if (!key)
      throw new ApiRequestError(
        0,
        'no_key',
        'Create an API key first, or paste one into "Key used by this page".',
      );
    headers.authorization = 'Bearer ' + key;
    // Every /v1 POST of the page may be retried safely: the API answers a repeat with the first answer.
    if (method === 'POST') headers['idempotency-key'] = idempotencyKey();
  }
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiRequestError(0, 'network', 'The demo app did not answer: is it still running?');
  }
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    const error = json && json.error;
    if (error) throw new ApiRequestError(response.status, error.code, error.message, error.param);
    throw new ApiRequestError(
      response.status,
      'http_' + response.status,
      'HTTP ' + response.status + ' ' + text,
    );
  }
  return json;
}

/** The host's dashboard routes (keys, sessions, receiver), behind its login in a real app. */
export const dashboard = (method, path, body) => request(method, '/developers/api' + path, body, undefined);

/** The public API with the key the page uses in its current mode. */
export const api = (method, path, body) => request(method, '/v1' + path, body, state.key);

/** The public API with a given key. */
export const apiWith = (key, method, path) => request(method, '/v1' + path, undefined, key);

/** A query string of the given parameters, leaving out empty ones. */
export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? '?' + text : '';
}
