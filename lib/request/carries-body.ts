import type { IncomingMessage } from 'node:http';

/** Whether the request says it carries a body, read or not: a length above 0, or chunks. */
export function carriesBody(request: Pick<IncomingMessage, 'headers'>): boolean {
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length']) > 0;
}
