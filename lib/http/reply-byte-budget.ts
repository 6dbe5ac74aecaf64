import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

import type { buildConnector } from 'undici';

import { RESPONSE_READ_LIMIT_BYTES } from './capped-body.js';

/**
 * Bytes one reply may take off the wire: undici's 16 KiB of headers, the body cap with its chunk
 * framing, a few 1xx replies, and room to spare. The body cap alone bounds only the bytes undici
 * hands over as body; a status line, a chunk extension or a chunk size without end, blank lines or
 * an endless run of 1xx replies would otherwise be read at line rate until the deadline.
 */
export const REPLY_BYTE_BUDGET = 64 * 1024 + RESPONSE_READ_LIMIT_BYTES;

/** A reply that went over REPLY_BYTE_BUDGET: its socket is closed. */
export class ReplyOverBudgetError extends Error {
  constructor() {
    super(`The reply took more than ${REPLY_BYTE_BUDGET} bytes off the wire.`);
    this.name = 'ReplyOverBudgetError';
  }
}

/** What each budgeted socket had read when its current request went out. */
const readBefore = new WeakMap<Socket, number>();

let following = false;

/** A socket is reused for request after request: each one starts its budget afresh. */
function followRequests(): void {
  if (following) return;
  following = true;
  subscribe('undici:client:sendHeaders', (message) => {
    const { socket } = message as { socket: Socket };
    if (readBefore.has(socket)) readBefore.set(socket, socket.bytesRead);
  });
}

/**
 * `connect`, with each socket it opens closed as soon as the reply to its current request has
 * taken more than `budget` bytes. Checked whenever bytes arrive, before undici reads them.
 */
export function withReplyByteBudget(
  connect: buildConnector.connector,
  budget = REPLY_BYTE_BUDGET,
): buildConnector.connector {
  followRequests();
  return (options, callback) => {
    connect(options, (...result) => {
      const [error, socket] = result;
      if (error === null) {
        readBefore.set(socket, socket.bytesRead);
        socket.on('readable', () => {
          if (socket.bytesRead - (readBefore.get(socket) ?? 0) > budget)
            socket.destroy(new ReplyOverBudgetError());
        });
      }
      callback(...result);
    });
  };
}
