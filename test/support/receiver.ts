import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/**
 * How long a test waits for an outcome unless it says otherwise. A wait ends as soon as the outcome
 * shows, so only a failing test waits this long; it leaves room for a machine busy with other work,
 * where every step can take several times as long as on a quiet one. jest.config.cjs gives each
 * test twice this.
 */
export const WAIT_MS = 60_000;

/** Decides the reply to the n-th request (0-based); answers 200 by default. */
export type Responder = (request: ReceivedRequest, index: number, response: ServerResponse) => void;

/** A real webhook receiver on loopback that records every request it gets. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];

  private constructor(
    private readonly server: Server,
    private responder: Responder,
  ) {}

  static async start(
    responder: Responder = (_req, _i, res) => res.writeHead(200).end('ok'),
  ): Promise<Receiver> {
    let receiver: Receiver | null = null;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () =>
        receiver!.handle(req.method ?? '', req.url ?? '', req.headers, Buffer.concat(chunks), res),
      );
    });
    receiver = new Receiver(server, responder);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  respondWith(responder: Responder): void {
    this.responder = responder;
  }

  /** Resolves once `count` requests have arrived, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs = WAIT_MS): Promise<ReceivedRequest[]> {
    if (this.requests.length >= count) return Promise.resolve(this.requests);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`expected ${count} requests, got ${this.requests.length}`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve(this.requests);
        },
      });
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    body: Buffer,
    res: ServerResponse,
  ): void {
    const request: ReceivedRequest = {
      method,
      path,
      headers,
      body: body.toString('utf8'),
      receivedAt: Date.now(),
    };
    const index = this.requests.length;
    this.requests.push(request);
    this.responder(request, index, res);
    this.waiters = this.waiters.filter((waiter) => {
      if (this.requests.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  }
}

/** The receivers a test file starts, to close together after each test whatever happened. */
export class OpenReceivers {
  private open: Receiver[] = [];

  async start(...args: Parameters<typeof Receiver.start>): Promise<Receiver> {
    const receiver = await Receiver.start(...args);
    this.open.push(receiver);
    return receiver;
  }

  async closeAll(): Promise<void> {
    const closing = this.open;
    this.open = [];
    await Promise.all(closing.map((receiver) => receiver.close()));
  }
}

/** Polls `check` until it returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = WAIT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
