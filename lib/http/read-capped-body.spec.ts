import { Readable } from 'node:stream';

import { readCappedBody, RESPONSE_READ_LIMIT_BYTES, STORED_BODY_MAX_CHARS } from './read-capped-body.js';

const streamOf = (...chunks: (string | Buffer)[]): Readable =>
  Readable.from(chunks.map((chunk) => Buffer.from(chunk)));

describe('readCappedBody', () => {
  it('returns a short reply whole', async () => {
    expect(await readCappedBody(streamOf('{"ok":', 'true}'))).toEqual({
      text: '{"ok":true}',
      error: undefined,
    });
  });

  it('strips NUL and replaces invalid UTF-8 instead of failing', async () => {
    const bytes = Buffer.concat([Buffer.from('a\u0000b'), Buffer.from([0xff, 0xfe]), Buffer.from('c')]);
    expect((await readCappedBody(streamOf(bytes))).text).toBe('ab\ufffd\ufffdc');
  });

  it('keeps 2,000 characters of multi-byte text', async () => {
    const { text } = await readCappedBody(streamOf('€'.repeat(5000)));
    expect(text).toBe('€'.repeat(STORED_BODY_MAX_CHARS));
  });

  it('never splits a surrogate pair at the 2,000-character boundary', async () => {
    const { text } = await readCappedBody(streamOf(`a${'😀'.repeat(3000)}`));
    expect(text).toBe(`a${'😀'.repeat(999)}`);
    expect(Buffer.from(text).toString()).toBe(text);
  });

  it('drops a character cut in half by the byte cap rather than storing U+FFFD', async () => {
    const { text } = await readCappedBody(streamOf(Buffer.alloc(RESPONSE_READ_LIMIT_BYTES - 1), 'é'));
    expect(text).toBe('');
  });

  it('stops pulling an endless stream at the cap and destroys it', async () => {
    let pulled = 0;
    const endless = Readable.from(
      (function* (): Generator<Buffer> {
        for (;;) {
          pulled += 1024;
          yield Buffer.alloc(1024, 'z');
        }
      })(),
    );
    const result = await readCappedBody(endless);
    expect(result).toEqual({ text: 'z'.repeat(STORED_BODY_MAX_CHARS), error: undefined });
    expect(endless.destroyed).toBe(true);
    // The cap plus what the stream had buffered ahead (its high-water mark), nothing more.
    expect(pulled).toBeLessThan(64 * 1024);
  });

  it('returns what arrived before a failure, with the failure', async () => {
    const failure = new Error('socket hang up');
    const failing = Readable.from(
      (function* (): Generator<Buffer> {
        yield Buffer.from('partial');
        throw failure;
      })(),
    );
    expect(await readCappedBody(failing)).toEqual({ text: 'partial', error: failure });
  });
});
