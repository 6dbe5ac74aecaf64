import type { Response } from 'express';

/** An answer as it left the process: what a retry is given again, byte for byte. */
export interface SentAnswer {
  status: number;
  /** The `Content-Type` sent, null when none was (a 204, say). */
  contentType: string | null;
  body: Buffer;
}

/** `end` and `write` as called: their arguments (chunk, encoding, callback) vary and pass on as given. */
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
 * Hands `settle` the answer as finally shaped, and sends it only once `settle` is done, so that a
 * retry arriving with the answer finds it kept. A streamed answer was never whole: `settle` gets
 * null. `settle` reports its own failures; the answer is sent regardless.
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
 * Sends `answer` in place of what the layers around the handler send, which would reshape it
 * again: a retry gets the first request's bytes. An error status set meanwhile is sent as it is.
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
