import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

import type { buildConnector } from 'undici';

import { REPLY_BYTE_BUDGET } from '../interview-api.tuning.js';

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
