import { Webhook } from 'standardwebhooks';
import { Headers } from 'undici';

import {
  decodeWebhookSecret,
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookVerificationFailure,
} from './index.js';

// The test vector published with the Standard Webhooks reference libraries.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  msgId: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const atVectorTime = { now: (): number => VECTOR.timestamp * 1000 };

function vectorHeaders(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    'webhook-id': VECTOR.msgId,
    'webhook-timestamp': String(VECTOR.timestamp),
    'webhook-signature': VECTOR.signature,
    ...overrides,
  };
}

function failureOf(verify: () => void): WebhookVerificationFailure {
  try {
    verify();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  throw new Error('verification unexpectedly passed');
}

describe('webhook secrets', () => {
  it('generates whsec_ secrets holding 32 fresh random bytes', () => {
    const first = generateWebhookSecret();
    const second = generateWebhookSecret();
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(decodeWebhookSecret(first)).toHaveLength(32);
    expect(second).not.toBe(first);
  });

  it('decodes with or without the prefix and refuses an empty key', () => {
    expect(decodeWebhookSecret(VECTOR.secret)).toEqual(
      Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'),
    );
    expect(decodeWebhookSecret('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toEqual(
      decodeWebhookSecret(VECTOR.secret),
    );
    expect(() => decodeWebhookSecret('whsec_')).toThrow('empty key');
  });

  // Node's decoder would skip what it cannot read and stop at the first '=': a key of a byte or two.
  it.each([
    ['a stray = early on', 'whsec_Mf=KQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['a character outside base64', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLa!w'],
    ['base64url', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLa-w'],
    ['whitespace', 'whsec_MfKQ9r8GKYqrTwjU PD8ILPZIo2LaLaSw'],
  ])('refuses a secret with %s, as the reference library does', (_what, secret) => {
    expect(() => decodeWebhookSecret(secret)).toThrow('not base64');
    expect(() => new Webhook(secret)).toThrow();
  });
});

describe('signWebhook', () => {
  it('reproduces the official Standard Webhooks test vector', () => {
    expect(signWebhook(VECTOR.secret, VECTOR.msgId, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  it('signs a Buffer body byte for byte like the same string', () => {
    expect(signWebhook(VECTOR.secret, VECTOR.msgId, VECTOR.timestamp, Buffer.from(VECTOR.body))).toBe(
      VECTOR.signature,
    );
  });

  it('refuses timestamps that would not be signed as integer seconds', () => {
    expect(() => signWebhook(VECTOR.secret, VECTOR.msgId, 1614265330.5, VECTOR.body)).toThrow(RangeError);
    expect(() => signWebhook(VECTOR.secret, VECTOR.msgId, 1e21, VECTOR.body)).toThrow(RangeError);
  });
});

describe('verifyWebhook', () => {
  it('accepts the official vector at its own time', () => {
    expect(() => verifyWebhook(VECTOR.body, vectorHeaders(), VECTOR.secret, atVectorTime)).not.toThrow();
  });

  it('round-trips a fresh delivery signed by signWebhook, string or Buffer body', () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify({ type: 'interview.scheduled', data: { id: 'int_1', note: 'café ☕' } });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(secret, 'msg_1', timestamp, body),
    };
    expect(() => verifyWebhook(body, headers, secret)).not.toThrow();
    expect(() => verifyWebhook(Buffer.from(body), headers, secret)).not.toThrow();
  });

  it('reads header names case-insensitively, from records, arrays and Headers objects', () => {
    const mixedCase = {
      'Webhook-Id': VECTOR.msgId,
      'WEBHOOK-TIMESTAMP': String(VECTOR.timestamp),
      'Webhook-Signature': VECTOR.signature,
    };
    expect(() => verifyWebhook(VECTOR.body, mixedCase, VECTOR.secret, atVectorTime)).not.toThrow();

    const repeated = {
      ...vectorHeaders(),
      'webhook-signature': ['v1,c29tZXRoaW5nIGVsc2U=', VECTOR.signature],
    };
    expect(() => verifyWebhook(VECTOR.body, repeated, VECTOR.secret, atVectorTime)).not.toThrow();

    const fetchHeaders = new Headers(vectorHeaders());
    expect(() => verifyWebhook(VECTOR.body, fetchHeaders, VECTOR.secret, atVectorTime)).not.toThrow();
  });

  it('accepts any matching entry of a multi-signature header (secret rotation)', () => {
    const rotated = vectorHeaders({
      'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} v2,whatever ${VECTOR.signature}`,
    });
    expect(() => verifyWebhook(VECTOR.body, rotated, VECTOR.secret, atVectorTime)).not.toThrow();
  });

  it('refuses a body with one flipped byte', () => {
    const tampered = Buffer.from(VECTOR.body);
    tampered[9] ^= 0x01;
    expect(failureOf(() => verifyWebhook(tampered, vectorHeaders(), VECTOR.secret, atVectorTime))).toBe(
      'invalid_signature',
    );
  });

  it('refuses a signature with one flipped byte, or one cut short', () => {
    const mac = Buffer.from(VECTOR.signature.slice(3), 'base64');
    mac[0] ^= 0x80;
    const flipped = vectorHeaders({ 'webhook-signature': `v1,${mac.toString('base64')}` });
    expect(failureOf(() => verifyWebhook(VECTOR.body, flipped, VECTOR.secret, atVectorTime))).toBe(
      'invalid_signature',
    );
    const short = vectorHeaders({ 'webhook-signature': VECTOR.signature.slice(0, -4) });
    expect(failureOf(() => verifyWebhook(VECTOR.body, short, VECTOR.secret, atVectorTime))).toBe(
      'invalid_signature',
    );
  });

  it('refuses a delivery signed with another secret, or with the id changed', () => {
    expect(
      failureOf(() => verifyWebhook(VECTOR.body, vectorHeaders(), generateWebhookSecret(), atVectorTime)),
    ).toBe('invalid_signature');
    const otherId = vectorHeaders({ 'webhook-id': 'msg_other' });
    expect(failureOf(() => verifyWebhook(VECTOR.body, otherId, VECTOR.secret, atVectorTime))).toBe(
      'invalid_signature',
    );
  });

  it('refuses stale, future and malformed timestamps, honouring the tolerance', () => {
    const justInside = { now: (): number => (VECTOR.timestamp + 300) * 1000 };
    expect(() => verifyWebhook(VECTOR.body, vectorHeaders(), VECTOR.secret, justInside)).not.toThrow();

    const stale = { now: (): number => (VECTOR.timestamp + 301) * 1000 };
    expect(failureOf(() => verifyWebhook(VECTOR.body, vectorHeaders(), VECTOR.secret, stale))).toBe(
      'timestamp_out_of_tolerance',
    );
    const early = { now: (): number => (VECTOR.timestamp - 301) * 1000 };
    expect(failureOf(() => verifyWebhook(VECTOR.body, vectorHeaders(), VECTOR.secret, early))).toBe(
      'timestamp_out_of_tolerance',
    );
    const narrow = { toleranceSeconds: 10, now: (): number => (VECTOR.timestamp + 11) * 1000 };
    expect(failureOf(() => verifyWebhook(VECTOR.body, vectorHeaders(), VECTOR.secret, narrow))).toBe(
      'timestamp_out_of_tolerance',
    );
    const unbounded = { toleranceSeconds: Number.POSITIVE_INFINITY, now: atVectorTime.now };
    expect(
      failureOf(() =>
        verifyWebhook(
          VECTOR.body,
          vectorHeaders({ 'webhook-timestamp': '9'.repeat(20) }),
          VECTOR.secret,
          unbounded,
        ),
      ),
    ).toBe('timestamp_out_of_tolerance');
    for (const timestamp of ['1614265330.0', '-1614265330', 'abc', ' 1614265330']) {
      const malformed = vectorHeaders({ 'webhook-timestamp': timestamp });
      expect(failureOf(() => verifyWebhook(VECTOR.body, malformed, VECTOR.secret, atVectorTime))).toBe(
        'timestamp_out_of_tolerance',
      );
    }
  });

  it('refuses a delivery missing any of the three headers', () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const headers: Record<string, string | undefined> = vectorHeaders();
      delete headers[name];
      expect(failureOf(() => verifyWebhook(VECTOR.body, headers, VECTOR.secret, atVectorTime))).toBe(
        'missing_headers',
      );
      const empty = vectorHeaders({ [name]: '' });
      expect(failureOf(() => verifyWebhook(VECTOR.body, empty, VECTOR.secret, atVectorTime))).toBe(
        'missing_headers',
      );
    }
  });
});

describe('interoperability with the standardwebhooks npm package', () => {
  const body = '{"type":"interview.completed","data":{"id":"int_42"}}';

  it('our signature verifies with the reference library', () => {
    const secret = generateWebhookSecret();
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_ours',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(secret, 'msg_ours', timestamp, body),
    };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("the reference library's signature verifies with ours", () => {
    const secret = generateWebhookSecret();
    const sentAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    const headers = {
      'webhook-id': 'msg_theirs',
      'webhook-timestamp': String(sentAt.getTime() / 1000),
      'webhook-signature': new Webhook(secret).sign('msg_theirs', sentAt, body),
    };
    expect(() => verifyWebhook(body, headers, secret)).not.toThrow();
    expect(failureOf(() => verifyWebhook(`${body} `, headers, secret))).toBe('invalid_signature');
  });
});
