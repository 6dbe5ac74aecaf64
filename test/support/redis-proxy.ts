import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';
import { REDIS } from './webhooks.js';

/** Passes bytes on, or holds them (and, by back-pressure, all that follows) while shut. */
class Valve extends Transform {
  private held: (() => void) | null = null;

  constructor(private shut: boolean) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.shut) this.held = () => done(null, chunk);
    else done(null, chunk);
  }

  setShut(shut: boolean): void {
    this.shut = shut;
    const held = this.held;
    this.held = null;
    if (!shut) held?.();
  }
}

/**
 * A TCP proxy in front of the shared Redis, so that one test can take "its" Redis down and bring
 * it back (stop, start), or make it stall and answer again (stall, resume), without disturbing the
 * other test files that use the same server.
 */
export class RedisProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly valves = new Set<Valve>();
  private stalled = false;

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
      const valves = [new Valve(this.stalled), new Valve(this.stalled)];
      valves.forEach((valve) => this.valves.add(valve));
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(valves[0]).pipe(upstream).pipe(valves[1]).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => {
        client.destroy();
        valves.forEach((valve) => this.valves.delete(valve));
      });
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

  /**
   * Keeps every connection open and accepts new ones, but passes nothing on either way: a Redis
   * behind a silent partition, or a server that has stalled.
   */
  stall(): void {
    this.setStalled(true);
  }

  /** Passes on again what the stall held, as a partition that heals does. */
  resume(): void {
    this.setStalled(false);
  }

  private setStalled(stalled: boolean): void {
    this.stalled = stalled;
    this.valves.forEach((valve) => valve.setShut(stalled));
  }
}
