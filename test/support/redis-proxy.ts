import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { REDIS } from './webhooks.js';

/**
 * A TCP proxy in front of the shared Redis, so that one test can take "its" Redis down and bring
 * it back (stop, start) without disturbing the other test files that use the same server.
 */
export class RedisProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  private constructor(public port: number) {}

  static async start(): Promise<RedisProxy> {
    const proxy = new RedisProxy(0);
    await proxy.start();
    return proxy;
  }

  /** Listens again, on the same port once it has one. */
  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(REDIS.port, REDIS.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Refuses new connections and cuts the open ones, as a Redis that went down would. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.sockets.forEach((socket) => socket.destroy());
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
