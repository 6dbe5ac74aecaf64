import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';

import { REPLY_BYTE_BUDGET } from '../interview-api.tuning.js';
import { WebhookHttpClient } from './webhook-http-client.js';

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

interface Flood {
  url: string;
  /** Bytes the server had handed to its socket when the client hung up. */
  written: () => number;
  closed: Promise<void>;
}

/** A server that answers the request's head with `head`, then `piece` over and over until the client hangs up. */
async function flood(head: string, piece: string): Promise<Flood> {
  let written = 0;
  let hungUp: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (hungUp = resolve));
  const chunk = Buffer.from(piece.repeat(Math.ceil(16_384 / piece.length)));
  const server = createServer((socket: Socket) => {
    socket.on('error', () => undefined);
    socket.on('close', hungUp);
    let seen = '';
    const onData = (data: Buffer): void => {
      seen += data.toString('latin1');
      if (!seen.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      socket.write(head);
      const pump = (): void => {
        while (!socket.destroyed) {
          written += chunk.length;
          if (!socket.write(chunk)) return;
        }
      };
      socket.on('drain', pump);
      pump();
    };
    socket.on('data', onData);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, written: () => written, closed };
}

describe('the reply byte budget', () => {
  // Before it, each of these was read at line rate until the deadline: gigabytes on loopback.
  it.each([
    ['a chunk extension without end', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1;a=', 'b', 200],
    ['a chunk size of endless zeros', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n', '0', 200],
    ['a status line without end', 'HTTP/1.1 200 ', 'O', null],
    ['blank lines before the status line', '', '\r\n', null],
    ['1xx replies without end', '', 'HTTP/1.1 103 Early Hints\r\nlink: </a>; rel=preload\r\n\r\n', null],
  ])('cuts off %s long before the deadline', async (_what, head, piece, status) => {
    const server = await flood(head, piece);
    const client = new WebhookHttpClient({
      timeoutMs: 10_000,
      allowPrivateDestinations: true,
      maxConnections: 1,
    });
    try {
      const outcome = await client.send({ url: server.url, headers: {}, body: '{}', now: new Date() });
      // After a status line the reply is taken as a body over the read cap is; before, the connection failed.
      expect(outcome).toMatchObject(
        status === null ? { status: null, error: 'connection_error' } : { status, error: null, body: '' },
      );
      await server.closed;
      // What the kernel's socket buffers held, not the gigabytes of an unbounded read.
      expect(server.written()).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await client.close();
    }
  });

  it('starts afresh for each request on a kept-alive socket', async () => {
    const reply = 'x'.repeat(4096);
    const server = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => res.end(reply));
    });
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    let connections = 0;
    server.on('connection', () => connections++);
    const { port } = server.address() as AddressInfo;
    const client = new WebhookHttpClient({
      timeoutMs: 10_000,
      allowPrivateDestinations: true,
      maxConnections: 1,
    });
    const requests = Math.ceil((4 * REPLY_BYTE_BUDGET) / reply.length);
    try {
      for (let i = 0; i < requests; i++) {
        const outcome = await client.send({
          url: `http://127.0.0.1:${port}/hook`,
          headers: {},
          body: '{}',
          now: new Date(),
        });
        expect(outcome).toMatchObject({ status: 200, error: null });
      }
      // One socket read four budgets' worth of replies, each within its own.
      expect(connections).toBe(1);
    } finally {
      await client.close();
    }
  });
});
