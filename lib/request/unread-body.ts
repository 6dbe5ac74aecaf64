import type { IncomingMessage } from 'node:http';

/** What each request's unread body turned out to be, so that a second look gets the first answer. */
const emptiness = new WeakMap<IncomingMessage, Promise<boolean>>();

function readUntilFirstByte(request: IncomingMessage): Promise<boolean> {
  if (request.readableEnded) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (empty: boolean): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      // The rest is drained, so that the answer is not held up by an unread request.
      if (!empty) request.resume();
      resolve(empty);
    };
    const onData = (chunk: Buffer): void => {
      if (chunk.length > 0) settle(false);
    };
    const onEnd = (): void => settle(true);
    const onError = (): void => settle(false);
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', onError);
  });
}

/**
 * Whether a body no parser took turns out to hold nothing: a chunked body announces no length, and
 * streaming clients send an empty one that way. Reads until the first byte or the end, whichever
 * comes first; a body consumed elsewhere counts as one that was not empty.
 */
export function unreadBodyTurnsOutEmpty(request: IncomingMessage): Promise<boolean> {
  let empty = emptiness.get(request);
  if (empty === undefined) {
    empty = readUntilFirstByte(request);
    emptiness.set(request, empty);
  }
  return empty;
}
