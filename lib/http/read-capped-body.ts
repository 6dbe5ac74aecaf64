import type { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';

/** 2,000 characters take at most 8,000 UTF-8 bytes, so this is enough to fill the stored value. */
export const RESPONSE_READ_LIMIT_BYTES = 8 * 1024;
export const STORED_BODY_MAX_CHARS = 2000;

export interface CappedBody {
  /** The stored reply text: valid UTF-16, free of NUL, at most STORED_BODY_MAX_CHARS long. */
  text: string;
  /** Why the read stopped early (deadline, reset), or undefined when it ended or hit the cap. */
  error: unknown;
}

/**
 * Reads a receiver's reply without trusting its size. A 10 MB or endlessly dripping reply must cost
 * no more than the bytes we keep, so reading stops at the cap and the stream is destroyed, which
 * closes the connection instead of draining it. Never `text()`: that buffers whatever is sent.
 */
export async function readCappedBody(body: Readable): Promise<CappedBody> {
  const chunks: Buffer[] = [];
  let received = 0;
  let error: unknown;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      received += chunk.length;
      if (received >= RESPONSE_READ_LIMIT_BYTES) {
        body.destroy();
        break;
      }
    }
  } catch (caught) {
    error = caught;
  }
  return { text: toStoredText(Buffer.concat(chunks, Math.min(received, RESPONSE_READ_LIMIT_BYTES))), error };
}

function toStoredText(bytes: Buffer): string {
  // Lenient decoding: a receiver's invalid UTF-8 becomes U+FFFD instead of failing the attempt.
  // `stream: true` drops a character cut in half by the byte cap rather than turning it into U+FFFD.
  // Postgres text columns reject NUL (22P05), and one failed insert would wedge the retries.
  const text = new TextDecoder('utf-8').decode(bytes, { stream: true }).replaceAll('\u0000', '');
  if (text.length <= STORED_BODY_MAX_CHARS) return text;
  // Counting UTF-16 units keeps the value within 2,000 characters by any measure (JS length or a
  // varchar's code points); a surrogate pair cut at the boundary is dropped whole.
  const lastUnit = text.charCodeAt(STORED_BODY_MAX_CHARS - 1);
  const end = lastUnit >= 0xd800 && lastUnit <= 0xdbff ? STORED_BODY_MAX_CHARS - 1 : STORED_BODY_MAX_CHARS;
  return text.slice(0, end);
}
