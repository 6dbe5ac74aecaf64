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
    ['CERT_HAS_EXPIRED', 'tls_error'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls_error'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls_error'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls_error'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls_error'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'tls_error'],
    ['ERR_BLOCKED_DESTINATION', 'blocked_destination'],
    ['ECONNREFUSED', 'connection_error'],
    ['ECONNRESET', 'connection_error'],
    ['UND_ERR_SOCKET', 'connection_error'],
  ])('maps %s to %s', (code, expected) => {
    expect(attemptErrorCode(withCode(code))).toBe(expected);
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
