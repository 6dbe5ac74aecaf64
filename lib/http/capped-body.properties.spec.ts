import fc from 'fast-check';
import { RESPONSE_READ_LIMIT_BYTES, STORED_BODY_MAX_CHARS } from '../interview-api.tuning.js';
import { CappedBody } from './capped-body.js';

/** A reply as it may arrive: any bytes, cut into chunks anywhere. */
const reply = fc.array(fc.uint8Array({ maxLength: 3000 }), { maxLength: 8 });
/** Text as a receiver may send it: any Unicode, astral characters and NUL included. */
const text = fc.string({ unit: 'grapheme', maxLength: 3000 });

/** A surrogate without its other half: text no database or JSON encoder takes as it is. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function read(chunks: readonly Uint8Array[]): { body: CappedBody; stoppedAt: number | null } {
  const body = new CappedBody();
  let received = 0;
  for (const chunk of chunks) {
    received += chunk.length;
    if (!body.add(Buffer.from(chunk))) return { body, stoppedAt: received };
  }
  return { body, stoppedAt: null };
}

describe('CappedBody, over generated replies', () => {
  it('stores at most 2,000 characters (code points) of well-formed text without NUL, whatever the bytes', () => {
    fc.assert(
      fc.property(reply, (chunks) => {
        const stored = read(chunks).body.text();
        expect([...stored].length).toBeLessThanOrEqual(STORED_BODY_MAX_CHARS);
        expect(LONE_SURROGATE.test(stored)).toBe(false);
        expect(stored.includes('\u0000')).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('asks to stop exactly when the bytes received reach the read cap', () => {
    fc.assert(
      fc.property(reply, (chunks) => {
        const { stoppedAt } = read(chunks);
        const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
        if (stoppedAt === null) expect(total).toBeLessThan(RESPONSE_READ_LIMIT_BYTES);
        else expect(stoppedAt).toBeGreaterThanOrEqual(RESPONSE_READ_LIMIT_BYTES);
      }),
      { numRuns: 500 },
    );
  });

  it('stores valid UTF-8 text as the receiver sent it, without NUL, up to 2,000 characters', () => {
    fc.assert(
      fc.property(text, fc.nat(40), (sent, cuts) => {
        const bytes = Buffer.from(sent, 'utf8');
        fc.pre(bytes.length < RESPONSE_READ_LIMIT_BYTES);
        const size = Math.max(1, Math.ceil(bytes.length / (cuts + 1)));
        const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
          bytes.subarray(i * size, (i + 1) * size),
        );
        const stored = read(chunks).body.text();
        const expected = [...sent.replaceAll('\u0000', '')];
        expect(stored).toBe(expected.slice(0, STORED_BODY_MAX_CHARS).join(''));
      }),
      { numRuns: 500 },
    );
  });
});
