import { type AddressInfo, createServer, type Server, Socket } from 'node:net';

/** Forwards loopback TCP connections to `target`; `down()` refuses and cuts them, `up()` restores. */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private server: Server;

  private constructor(
    private readonly target: { host: string; port: number },
    private port: number,
  ) {
    this.server = this.newServer();
  }

  static async start(target: string): Promise<TcpProxy> {
    const [host, port] = target.split(':');
    const proxy = new TcpProxy({ host, port: Number(port) }, 0);
    await proxy.up();
    return proxy;
  }

  /** A proxy in front of the PostgreSQL server of `databaseUrl`, and that URL through the proxy. */
  static async inFrontOfDatabase(databaseUrl: string): Promise<{ proxy: TcpProxy; url: string }> {
    const url = new URL(databaseUrl);
    const proxy = await TcpProxy.start(`${url.hostname}:${url.port || 5432}`);
    const [hostname, port] = proxy.address.split(':');
    Object.assign(url, { hostname, port });
    return { proxy, url: url.toString() };
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  private newServer(): Server {
    return createServer((inbound) => {
      const outbound = new Socket();
      for (const socket of [inbound, outbound]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      outbound.connect(this.target.port, this.target.host);
      inbound.pipe(outbound).pipe(inbound);
      inbound.on('close', () => outbound.destroy());
      outbound.on('close', () => inbound.destroy());
    });
  }

  async up(): Promise<void> {
    if (this.server.listening) {
      return;
    }
    this.server = this.newServer();
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  down(): void {
    this.server.close();
    for (const socket of this.sockets) {
      socket.destroy();
    }
  }

  async stop(): Promise<void> {
    this.down();
  }
}
