import { attemptErrorCode } from './attempt-error.js';

const withCode = (code: string): Error => Object.assign(new Error(code), { code });

describe('attemptErrorCode', () => {
  it.each([
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
    ['UND_ERR_BODY_TIMEOUT', 'timeout'],
    ['ETIMEDOUT', 'timeout'],
    ['ENOTFOUND', 'dns_error'],
    ['EAI_AGAIN', 'dns_error'],
    ['ENODATA', 'dns_error'],
    ['ETIMEOUT', 'dns_error'],
    ['ESERVFAIL', 'dns_error'],
    ['EREFUSED', 'dns_error'],
    ['EBADRESP', 'dns_error'],
    ['EFORMERR', 'dns_error'],
    ['ENOTIMP', 'dns_error'],
    ['EBADNAME', 'dns_error'],
    ['ECANCELLED', 'dns_error'],
    ['EDESTRUCTION', 'dns_error'],
    ['EOF', 'dns_error'],
    ['CERT_HAS_EXPIRED', 'tls_error'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls_error'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls_error'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls_error'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls_error'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'tls_error'],
    ['INVALID_PURPOSE', 'tls_error'],
    ['UNSPECIFIED', 'tls_error'],
    ['INVALID_CA', 'tls_error'],
    ['PATH_LENGTH_EXCEEDED', 'tls_error'],
    ['ERROR_IN_CERT_NOT_BEFORE_FIELD', 'tls_error'],
    ['ERROR_IN_CERT_NOT_AFTER_FIELD', 'tls_error'],
    ['ERROR_IN_CRL_LAST_UPDATE_FIELD', 'tls_error'],
    ['ERROR_IN_CRL_NEXT_UPDATE_FIELD', 'tls_error'],
    ['CRL_SIGNATURE_FAILURE', 'tls_error'],
    ['CRL_NOT_YET_VALID', 'tls_error'],
    ['CRL_HAS_EXPIRED', 'tls_error'],
    ['UNABLE_TO_GET_CRL', 'tls_error'],
    ['UNABLE_TO_DECRYPT_CRL_SIGNATURE', 'tls_error'],
    ['OUT_OF_MEM', 'tls_error'],
    ['CERT_UNTRUSTED', 'tls_error'],
    ['CERT_REJECTED', 'tls_error'],
    ['HOSTNAME_MISMATCH', 'tls_error'],
    ['ERR_BLOCKED_DESTINATION', 'blocked_destination'],
    ['ECONNREFUSED', 'connection_error'],
    ['ECONNRESET', 'connection_error'],
    ['UND_ERR_SOCKET', 'connection_error'],
  ])('maps %s to %s', (code, expected) => {
    expect(attemptErrorCode(withCode(code))).toBe(expected);
  });

  it('maps a socket code to dns_error only when a DNS query raised it', () => {
    const fromQuery = (code: string, syscall: string): Error => Object.assign(withCode(code), { syscall });
    expect(attemptErrorCode(fromQuery('ECONNREFUSED', 'queryA'))).toBe('dns_error');
    expect(attemptErrorCode(fromQuery('ENOMEM', 'queryAaaa'))).toBe('dns_error');
    expect(attemptErrorCode(fromQuery('EAI_MEMORY', 'getaddrinfo'))).toBe('dns_error');
    expect(attemptErrorCode(fromQuery('ECONNREFUSED', 'connect'))).toBe('connection_error');
  });

  it('maps the deadline and abort reasons to timeout', () => {
    expect(
      attemptErrorCode(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ).toBe('timeout');
    expect(attemptErrorCode(new DOMException('This operation was aborted', 'AbortError'))).toBe('timeout');
  });

  it('looks through wrapping errors for the cause', () => {
    const wrapped = new TypeError('fetch failed', { cause: withCode('CERT_HAS_EXPIRED') });
    expect(attemptErrorCode(wrapped)).toBe('tls_error');
  });

  it('falls back to connection_error for anything unrecognised, even a cyclic chain', () => {
    const cyclic: Error & { cause?: unknown } = new Error('loop');
    cyclic.cause = cyclic;
    expect(attemptErrorCode(cyclic)).toBe('connection_error');
    expect(attemptErrorCode('a string')).toBe('connection_error');
    expect(attemptErrorCode(undefined)).toBe('connection_error');
  });
});
