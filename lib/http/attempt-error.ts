import * as dns from 'node:dns';

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
// Every code a resolution fails with: c-ares on the guarded path (a spent budget included, as
// ETIMEOUT), getaddrinfo when private destinations are allowed.
const DNS_CODES = new Set<string>([
  dns.NODATA,
  dns.FORMERR,
  dns.SERVFAIL,
  dns.NOTFOUND,
  dns.NOTIMP,
  dns.REFUSED,
  dns.BADQUERY,
  dns.BADNAME,
  dns.BADFAMILY,
  dns.BADRESP,
  dns.TIMEOUT,
  dns.EOF,
  dns.FILE,
  dns.DESTRUCTION,
  dns.BADSTR,
  dns.BADFLAGS,
  dns.NONAME,
  dns.BADHINTS,
  dns.NOTINITIALIZED,
  dns.LOADIPHLPAPI,
  dns.ADDRGETNETWORKPARAMS,
  dns.CANCELLED,
  'EAI_AGAIN',
  'EAI_FAIL',
]);
// ECONNREFUSED and ENOMEM come from sockets too: they are DNS failures only when a query raised them.
const DNS_SYSCALL = /^(getaddrinfo|query)/;
// Node's X509 verification codes (X509ErrorCode), UNSPECIFIED for the rest.
const TLS_CODES = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'OUT_OF_MEM',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'UNSPECIFIED',
]);
// Node's own TLS errors and OpenSSL's handshake failures.
const TLS_CODE_PREFIXES = ['ERR_TLS_', 'ERR_SSL_'];

// Wrappers (undici, fetch-style errors) keep the socket error in `cause`; the depth bound keeps a
// cyclic chain from looping.
const MAX_CAUSE_DEPTH = 5;

interface ErrorFields {
  name?: unknown;
  code?: unknown;
  syscall?: unknown;
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
    const { name, code, syscall, cause } = current as ErrorFields;
    if (typeof name === 'string' && TIMEOUT_NAMES.has(name)) return 'timeout';
    // DOMException carries a numeric `code`; only Node's string codes are meaningful here.
    if (typeof code === 'string') {
      if (code === BLOCKED_DESTINATION_CODE) return 'blocked_destination';
      if (TIMEOUT_CODES.has(code)) return 'timeout';
      if (DNS_CODES.has(code) || (typeof syscall === 'string' && DNS_SYSCALL.test(syscall)))
        return 'dns_error';
      if (TLS_CODES.has(code) || TLS_CODE_PREFIXES.some((prefix) => code.startsWith(prefix))) {
        return 'tls_error';
      }
    }
    current = cause;
  }
  return 'connection_error';
}
