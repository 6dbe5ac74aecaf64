import { TextDecoder } from 'node:util';
import { RESPONSE_READ_LIMIT_BYTES, STORED_BODY_MAX_CHARS } from '../interview-api.tuning.js';

/** Lenient: a receiver's invalid UTF-8 becomes U+FFFD instead of failing the attempt. */
const decoder = new TextDecoder('utf-8');

/**
 * A receiver's reply, kept without trusting its size: a 10 MB or endlessly dripping reply must cost
 * no more than the bytes we keep, so `add` says when to stop reading and hang up.
 */
export class CappedBody {
  private readonly chunks: Buffer[] = [];
  private received = 0;

  /** Keeps a chunk of the reply; answers false once the cap is reached and reading should stop. */
  add(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.received += chunk.length;
    return this.received < RESPONSE_READ_LIMIT_BYTES;
  }

  /** The stored reply text: valid UTF-16, free of NUL, at most STORED_BODY_MAX_CHARS code points long. */
  text(): string {
    const capped = this.received >= RESPONSE_READ_LIMIT_BYTES;
    const bytes =
      this.chunks.length === 1 && !capped
        ? this.chunks[0]
        : Buffer.concat(this.chunks, Math.min(this.received, RESPONSE_READ_LIMIT_BYTES));
    // Where the byte cap cut the reply, a streaming decode drops a character cut in half rather
    // than turning it into U+FFFD; that needs a decoder of its own, as it keeps the cut bytes.
    const decoded = capped ? new TextDecoder('utf-8').decode(bytes, { stream: true }) : decoder.decode(bytes);
    return toStoredText(decoded);
  }
}

function toStoredText(decoded: string): string {
  // Postgres text columns reject NUL (22P05), and one failed insert would wedge the retries.
  const text = decoded.includes('\u0000') ? decoded.replaceAll('\u0000', '') : decoded;
  if (text.length <= STORED_BODY_MAX_CHARS) return text;
  // Characters as the database and the rest of the API count them, by code point: a reply of
  // emoji keeps 2,000 of them, not the 1,000 that 2,000 UTF-16 units would hold. The decoder
  // leaves no surrogate unpaired, so each code point is whole.
  return [...text].slice(0, STORED_BODY_MAX_CHARS).join('');
}
