import type { Response } from 'express';

/** An answer as it left the process: what a retry is given again, byte for byte. */
export interface SentAnswer {
  status: number;
  /** The `Content-Type` sent, null when none was (a 204, say). */
  contentType: string | null;
  body: Buffer;
}

/** `end` and `write` as called: their arguments vary (chunk, encoding, callback), so they are passed on as given. */
type Writer<R> = (...args: unknown[]) => R;

/** The bytes `end` was given: a string in its encoding, a buffer, or none. */
function bytesOf(chunk: unknown, encoding: unknown): Buffer {
  if (typeof chunk === 'string') {
    return Buffer.from(
      chunk,
      typeof encoding === 'string' && Buffer.isEncoding(encoding) ? encoding : 'utf8',
    );
  }
  if (ArrayBuffer.isView(chunk)) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.alloc(0);
}

/**
 * Hands `settle` the answer this response is about to send, once every interceptor, serializer and
 * filter around the handler has shaped it, and sends it only after `settle` has finished: a retry
 * arriving the moment the answer does must find it kept. An answer written in parts before its end
 * (a `StreamableFile` piped out) was never whole in hand, so `settle` gets null for it. `settle`
 * reports its own failures: the answer is sent whatever it did.
 */
export function beforeSending(
  response: Response,
  settle: (answer: SentAnswer | null) => Promise<void>,
): void {
  const write = response.write as Writer<boolean>;
  const end = response.end as Writer<Response>;
  let streamed = false;
  const writeAndNote: Writer<boolean> = (...args) => {
    streamed = true;
    return write.apply(response, args);
  };
  const endAfterSettling: Writer<Response> = (...args) => {
    response.write = write as Response['write'];
    response.end = end as Response['end'];
    const [chunk, encoding] = typeof args[0] === 'function' ? [] : args;
    const contentType = response.getHeader('Content-Type');
    const answer: SentAnswer | null = streamed
      ? null
      : {
          status: response.statusCode,
          contentType: typeof contentType === 'string' ? contentType : null,
          body: bytesOf(chunk, encoding),
        };
    void settle(answer).finally(() => end.apply(response, args));
    return response;
  };
  response.write = writeAndNote as Response['write'];
  response.end = endAfterSettling as Response['end'];
}

/**
 * Sends `answer` in place of whatever the layers around the handler send for this response: they
 * would reshape it again (a serializer's `@Exclude()` unapplied, a getter lost), and it is the
 * answer the first request got that a retry must get. A failure outside the handler (an error
 * status by then) is sent as it is.
 */
export function sendInstead(response: Response, answer: SentAnswer): void {
  const send = response.send;
  response.send = (body?: unknown): Response => {
    response.send = send;
    if (response.statusCode >= 400) return send.call(response, body);
    response.status(answer.status);
    if (answer.contentType === null) response.removeHeader('Content-Type');
    else response.setHeader('Content-Type', answer.contentType);
    response.setHeader('Idempotent-Replayed', 'true');
    // Without a type, Express would label any bytes application/octet-stream; an empty body needs none.
    return send.call(
      response,
      answer.contentType === null && answer.body.length === 0 ? undefined : answer.body,
    );
  };
}
