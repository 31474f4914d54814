/**
 * A TCP relay between one host agent and the local endpoint that the test can cut and heal: a network partition
 * between that host and the control plane (new connections refused, open ones dropped), nobody else affected.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export class Partition {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private port = 0;

  private constructor(private readonly targetPort: number) {}

  static async open(targetUrl: string): Promise<Partition> {
    const partition = new Partition(Number(new URL(targetUrl).port));
    await partition.listen(0);
    return partition;
  }

  /** The endpoint URL as seen through the relay. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The host loses the control plane: its open connections drop and new ones are refused. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  /** Contact again, on the same port. */
  heal(): Promise<void> {
    return this.listen(this.port);
  }

  private listen(port: number): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        if (typeof address === 'object' && address) this.port = address.port;
        resolve();
      });
    });
  }
}
