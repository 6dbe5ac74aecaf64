import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A webhook endpoint that accepts every connection, reads the request and never answers: each send
 * to it holds its slot until the deadline, the worst a receiver can do to a sender.
 */
export class SilentReceiver {
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      socket.resume();
    });
  }

  static async start(): Promise<SilentReceiver> {
    const receiver = new SilentReceiver(createServer());
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Hangs up on every connection, so that the sends it holds end now rather than at their deadline. */
  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
