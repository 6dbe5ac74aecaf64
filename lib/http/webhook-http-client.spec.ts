import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { WebhookHttpClient, type WebhookRequest, type WebhookResponse } from './index.js';

interface TestServer {
  url: string;
  port: number;
  /** TCP connections accepted, whether or not a request followed. */
  connections: () => number;
  requests: IncomingMessage[];
  bodies: string[];
}

/** What the processor passes under the default `webhooks.concurrency`. */
const MAX_CONNECTIONS = 50;

const servers: Server[] = [];

async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TestServer> {
  const requests: IncomingMessage[] = [];
  const bodies: string[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    requests.push(req);
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => bodies.push(body));
    handler(req, res);
  });
  server.on('connection', () => connections++);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, port, connections: () => connections, requests, bodies };
}

/** A port with nothing listening: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const delivery = (url: string, now = new Date()): WebhookRequest => ({
  url,
  headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'Accept-Encoding': 'gzip' },
  body: '{"type":"interview.scheduled"}',
  now,
});

afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

describe('WebhookHttpClient with private destinations allowed (loopback receivers)', () => {
  let client: WebhookHttpClient;
  beforeEach(() => {
    client = new WebhookHttpClient({
      timeoutMs: 10_000,
      allowPrivateDestinations: true,
      maxConnections: MAX_CONNECTIONS,
    });
  });
  afterEach(async () => {
    await client.close();
  });

  it('POSTs the body and headers, and stores a 2xx reply as success', async () => {
    const server = await startServer((_req, res) => res.end('thanks'));
    const result = await client.send(delivery(server.url));

    expect(result).toEqual<WebhookResponse>({
      status: 200,
      body: 'thanks',
      error: null,
      retryAfterMs: null,
      durationMs: expect.any(Number) as number,
    });
    expect(Number.isInteger(result.durationMs)).toBe(true);
    expect(server.requests[0].method).toBe('POST');
    expect(server.requests[0].headers['webhook-id']).toBe('msg_1');
    expect(server.requests[0].headers['accept-encoding']).toBe('identity');
    expect(server.bodies).toEqual(['{"type":"interview.scheduled"}']);
  });

  it('reuses a kept-alive connection for the next delivery to the same origin', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    await client.send(delivery(server.url));
    // undici hands a finished socket back to the pool a moment after the body ends.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await client.send(delivery(server.url));
    expect(server.requests).toHaveLength(2);
    expect(server.connections()).toBe(1);
  });

  it('records a 500 as http_error with its status and body', async () => {
    const server = await startServer((_req, res) => {
      res.statusCode = 500;
      res.end('boom');
    });
    expect(await client.send(delivery(server.url))).toMatchObject({
      status: 500,
      body: 'boom',
      error: 'http_error',
    });
  });

  it('reads Retry-After from a 429 or a 503 reply, and from no other', async () => {
    const replies = [
      { status: 429, retryAfter: '120' },
      { status: 503, retryAfter: new Date(Date.now() + 60_000).toUTCString() },
      { status: 500, retryAfter: '120' },
      { status: 429, retryAfter: 'later' },
    ];
    let next = 0;
    const server = await startServer((_req, res) => {
      const { status, retryAfter } = replies[next++];
      res.writeHead(status, { 'Retry-After': retryAfter });
      res.end('slow down');
    });
    const results = [];
    for (let i = 0; i < replies.length; i++) results.push(await client.send(delivery(server.url)));

    expect(results.map((result) => [result.status, result.error])).toEqual([
      [429, 'http_error'],
      [503, 'http_error'],
      [500, 'http_error'],
      [429, 'http_error'],
    ]);
    expect(results[0].retryAfterMs).toBe(120_000);
    // An HTTP date has whole seconds, and a moment has passed since it was written.
    expect(results[1].retryAfterMs).toBeGreaterThan(57_000);
    expect(results[1].retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(results[2].retryAfterMs).toBeNull();
    expect(results[3].retryAfterMs).toBeNull();
  });

  it("reads a Retry-After date against the module's clock, not the process's", async () => {
    // The module's clock an hour ahead of this process's (it follows the database's).
    const now = new Date(Date.now() + 3_600_000);
    const server = await startServer((_req, res) => {
      res.writeHead(503, { 'Retry-After': new Date(now.getTime() + 60_000).toUTCString() });
      res.end();
    });
    const { retryAfterMs } = await client.send(delivery(server.url, now));
    expect(retryAfterMs).toBeGreaterThan(57_000);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('does not follow a redirect: a 302 is a failed attempt and the target sees nothing', async () => {
    const target = await startServer((_req, res) => res.end('should not be reached'));
    const server = await startServer((_req, res) => {
      res.writeHead(302, { location: target.url });
      res.end();
    });
    expect(await client.send(delivery(server.url))).toMatchObject({
      status: 302,
      body: '',
      error: 'http_error',
    });
    expect(target.connections()).toBe(0);
  });

  it('stores exactly the first 2,000 characters of a 1 MB reply', async () => {
    const server = await startServer((_req, res) => res.end('a'.repeat(1024 * 1024)));
    const result = await client.send(delivery(server.url));
    expect(result.status).toBe(200);
    expect(result.error).toBeNull();
    expect(result.body).toBe('a'.repeat(2000));
  });

  it('stops reading an endless reply at the cap and hangs up without waiting for the deadline', async () => {
    let written = 0;
    let hungUp = false;
    const server = await startServer((_req, res) => {
      const chunk = Buffer.alloc(16 * 1024, 'b');
      const pump = (): void => {
        while (!res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return;
        }
      };
      res.on('drain', pump);
      res.on('close', () => (hungUp = true));
      pump();
    });

    const result = await client.send(delivery(server.url));
    expect(result).toMatchObject({ status: 200, error: null, body: 'b'.repeat(2000) });
    // The 10 s deadline was not needed to end the attempt.
    expect(result.durationMs).toBeLessThan(5_000);
    await waitFor(() => hungUp);
    // The server only got rid of what the kernel's socket buffers absorbed (a few MB on loopback).
    expect(written).toBeLessThan(32 * 1024 * 1024);
  });

  it('ends a reply that drips a byte every 100 ms at the total deadline, as timeout', async () => {
    const dripping = new WebhookHttpClient({
      timeoutMs: 500,
      allowPrivateDestinations: true,
      maxConnections: MAX_CONNECTIONS,
    });
    const server = await startServer((_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('x'), 100);
      res.on('close', () => clearInterval(timer));
    });
    try {
      const result = await dripping.send(delivery(server.url));
      // The status line arrived, so it is kept, along with what dripped in before the deadline.
      expect(result.status).toBe(200);
      expect(result.error).toBe('timeout');
      expect(result.body).toMatch(/^x*$/);
      expect(result.durationMs).toBeGreaterThanOrEqual(400);
      expect(result.durationMs).toBeLessThan(5_000);
    } finally {
      await dripping.close();
    }
  });

  it('times out a receiver that accepts the connection and never answers', async () => {
    const silent = new WebhookHttpClient({
      timeoutMs: 500,
      allowPrivateDestinations: true,
      maxConnections: MAX_CONNECTIONS,
    });
    const server = await startServer(() => undefined);
    try {
      const result = await silent.send(delivery(server.url));
      expect(result).toMatchObject({ status: null, body: null, error: 'timeout' });
      expect(result.durationMs).toBeLessThan(5_000);
      expect(server.requests).toHaveLength(1);
    } finally {
      await silent.close();
    }
  });

  it('reports a refused connection as connection_error', async () => {
    const port = await closedPort();
    expect(await client.send(delivery(`http://127.0.0.1:${port}/hook`))).toMatchObject({
      status: null,
      body: null,
      error: 'connection_error',
    });
  });

  it('reports a connection the receiver drops mid-reply as connection_error, keeping the status', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setTimeout(() => res.destroy(), 50);
    });
    expect(await client.send(delivery(server.url))).toMatchObject({ status: 200, error: 'connection_error' });
  });

  it('reports a failed TLS handshake as tls_error', async () => {
    const server = await startServer((_req, res) => res.end('plain http'));
    expect(await client.send(delivery(`https://127.0.0.1:${server.port}/hook`))).toMatchObject({
      status: null,
      error: 'tls_error',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('reports a name that does not resolve as dns_error', async () => {
    expect(await client.send(delivery('http://nonexistent.invalid/hook'))).toMatchObject({
      status: null,
      body: null,
      error: 'dns_error',
    });
  });

  it('refuses URLs it cannot send to without throwing', async () => {
    for (const url of ['not a url', 'ftp://example.com/hook', 'file:///etc/passwd']) {
      expect(await client.send(delivery(url))).toMatchObject({ status: null, error: 'blocked_destination' });
    }
  });
});

describe('WebhookHttpClient guarding destinations', () => {
  let client: WebhookHttpClient;
  beforeEach(() => {
    client = new WebhookHttpClient({
      timeoutMs: 10_000,
      allowPrivateDestinations: false,
      maxConnections: MAX_CONNECTIONS,
    });
  });
  afterEach(async () => {
    await client.close();
  });

  it.each([
    ['an IPv4 literal', (port: number) => `https://127.0.0.1:${port}/hook`],
    [
      'a name resolving to loopback (the connect-time lookup)',
      (port: number) => `https://localhost:${port}/hook`,
    ],
    ['an IPv6 literal', (port: number) => `https://[::1]:${port}/hook`],
    ['an IPv4-mapped IPv6 literal', (port: number) => `https://[::ffff:127.0.0.1]:${port}/hook`],
    ['a decimal spelling of 127.0.0.1', (port: number) => `https://2130706433:${port}/hook`],
  ])('blocks %s before any connection is made', async (_label, urlFor) => {
    const server = await startServer((_req, res) => res.end('reached'));
    const result = await client.send(delivery(urlFor(server.port)));
    expect(result).toMatchObject({ status: null, body: null, error: 'blocked_destination' });
    // Give a stray connection attempt time to show up before asserting there was none.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.connections()).toBe(0);
  });

  it('sends nothing over plain http, even to a public address', async () => {
    // Sent, it would end in a reply, a refused connection or a timeout: anything but this.
    expect(await client.send(delivery('http://93.184.216.34/hook'))).toMatchObject({
      status: null,
      error: 'blocked_destination',
    });
  });

  it('still reports resolver failures through the guard as dns_error', async () => {
    expect(await client.send(delivery('https://nonexistent.invalid/hook'))).toMatchObject({
      status: null,
      error: 'dns_error',
    });
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 5_000) throw new Error('condition not met within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
