import { BLOCKED_DESTINATION_CODE } from './guarded-lookup.js';

export type AttemptErrorCode =
  'timeout' | 'connection_error' | 'tls_error' | 'dns_error' | 'blocked_destination' | 'http_error';

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);
const TIMEOUT_NAMES = new Set(['AbortError', 'TimeoutError']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL']);
const TLS_CODES = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'HOSTNAME_MISMATCH']);
const TLS_CODE_PREFIXES = ['ERR_TLS_', 'ERR_SSL_', 'CERT_', 'UNABLE_TO_'];

// Wrappers (undici, fetch-style errors) keep the socket error in `cause`; the depth bound keeps a
// cyclic chain from looping.
const MAX_CAUSE_DEPTH = 5;

interface ErrorFields {
  name?: unknown;
  code?: unknown;
  cause?: unknown;
}

/**
 * The stored code for a failed attempt. Anything unrecognised is a connection error: the receiver
 * is shown a cause category, never internal error text.
 */
export function attemptErrorCode(error: unknown): AttemptErrorCode {
  // Read fields structurally: errors raised by Node internals may come from another realm (Jest's VM
  // contexts, worker threads), where `instanceof Error` is false.
  let current = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    const { name, code, cause } = current as ErrorFields;
    if (typeof name === 'string' && TIMEOUT_NAMES.has(name)) return 'timeout';
    // DOMException carries a numeric `code`; only Node's string codes are meaningful here.
    if (typeof code === 'string') {
      if (code === BLOCKED_DESTINATION_CODE) return 'blocked_destination';
      if (TIMEOUT_CODES.has(code)) return 'timeout';
      if (DNS_CODES.has(code)) return 'dns_error';
      if (TLS_CODES.has(code) || TLS_CODE_PREFIXES.some((prefix) => code.startsWith(prefix))) {
        return 'tls_error';
      }
    }
    current = cause;
  }
  return 'connection_error';
}
