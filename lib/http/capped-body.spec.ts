import { RESPONSE_READ_LIMIT_BYTES, STORED_BODY_MAX_CHARS } from '../interview-api.tuning.js';
import { CappedBody } from './capped-body.js';

/** Feeds chunks until the body asks to stop; answers the text and how many chunks it took. */
function collect(...chunks: (string | Buffer)[]): { text: string; taken: number } {
  const body = new CappedBody();
  let taken = 0;
  for (const chunk of chunks) {
    taken++;
    if (!body.add(Buffer.from(chunk))) break;
  }
  return { text: body.text(), taken };
}

describe('CappedBody', () => {
  it('returns a short reply whole, across chunks', () => {
    expect(collect('{"ok":', 'true}').text).toBe('{"ok":true}');
  });

  it('is empty when nothing arrived', () => {
    expect(new CappedBody().text()).toBe('');
  });

  it('strips NUL and replaces invalid UTF-8 instead of failing', () => {
    const bytes = Buffer.concat([Buffer.from('a\u0000b'), Buffer.from([0xff, 0xfe]), Buffer.from('c')]);
    expect(collect(bytes).text).toBe('ab\ufffd\ufffdc');
  });

  it('keeps a reply of 2,000 characters whole, and cuts one of 2,001', () => {
    expect(collect('a'.repeat(STORED_BODY_MAX_CHARS)).text).toBe('a'.repeat(STORED_BODY_MAX_CHARS));
    expect(collect('a'.repeat(STORED_BODY_MAX_CHARS + 1)).text).toBe('a'.repeat(STORED_BODY_MAX_CHARS));
  });

  it('keeps 2,000 characters of multi-byte text', () => {
    expect(collect('€'.repeat(5000)).text).toBe('€'.repeat(STORED_BODY_MAX_CHARS));
  });

  it('counts characters by code point: 2,000 emoji are kept whole, no pair split', () => {
    const { text } = collect(`a${'😀'.repeat(3000)}`);
    expect(text).toBe(`a${'😀'.repeat(STORED_BODY_MAX_CHARS - 1)}`);
    expect(Buffer.from(text).toString()).toBe(text);
  });

  it('drops a character cut in half by the byte cap rather than storing U+FFFD', () => {
    expect(collect(Buffer.alloc(RESPONSE_READ_LIMIT_BYTES - 1), 'é').text).toBe('');
  });

  it('asks to stop at the cap, whatever follows', () => {
    const chunk = Buffer.alloc(1024, 'z');
    const { text, taken } = collect(...Array.from({ length: 1000 }, () => chunk));
    expect(taken).toBe(RESPONSE_READ_LIMIT_BYTES / 1024);
    expect(text).toBe('z'.repeat(STORED_BODY_MAX_CHARS));
  });
});
