import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

/** The longest marker found across two chunks of a connection. */
const MARKER_SPAN = 256;

/**
 * What the proxy does to the next client chunk that contains its marker, or, with `at`,
 * to the first chunk containing `at` sent after it on the same connection.
 */
type Cut = {
  marker: string;
  at?: string;
  deliver: boolean;
  /** Delivered, the cut waits for the server's answer (else it comes as the chunk is sent). */
  answered?: boolean;
  done: () => void;
};

/** Where a cut happens: with `at`, at a later chunk of the connection that sent the marker. */
export interface CutOptions {
  /**
   * The cut waits for the next chunk containing `at` on the connection that sent the
   * marker: PostgreSQL's `'COMMIT'` cuts the commit of the transaction that wrote it.
   */
  at?: string;
}

/**
 * Test support: a TCP proxy in front of a database server (Redis, PostgreSQL) that loses
 * a write's reply on demand, as a connection dropping at the worst moment does. After
 * `cutAfter(marker)` the next chunk a client sends that contains `marker` reaches the
 * server, the server answers it, and the connection is cut before the answer gets back;
 * after `cutBefore(marker)` that chunk never reaches the server and the connection is
 * cut. While `refusing`, new connections are closed at once (the server is unreachable).
 * Its `url` is the target's with the proxy's host and port (same scheme, user, database).
 * PostgreSQL writes in transactions: `{ at: 'COMMIT' }` moves the cut to the commit.
 */
export class CuttingProxy {
  refusing = false;
  private cut: Cut | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(target: string): Promise<CuttingProxy> {
    const url = new URL(target);
    const { hostname, port } = url;
    let proxy: CuttingProxy | undefined;
    const server = createServer((client) => proxy?.accept(client, hostname, Number(port)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const listening = typeof address === 'object' && address ? address.port : 0;
    url.host = `127.0.0.1:${listening}`;
    proxy = new CuttingProxy(server, url.toString());
    return proxy;
  }

  /** Resolves once a chunk containing `marker` reached the server and its answer was dropped. */
  cutAfter(marker: string, options: CutOptions = {}): Promise<void> {
    return new Promise((done) => {
      this.cut = { marker, at: options.at, deliver: true, done };
    });
  }

  /**
   * Resolves once a chunk containing `marker` was sent on to the server and the
   * connection cut at once, without waiting for the server to take it: the server may
   * still be working on it (a COMMIT still being made) when the client learns of the cut.
   */
  cutAsSent(marker: string, options: CutOptions = {}): Promise<void> {
    return new Promise((done) => {
      this.cut = { marker, at: options.at, deliver: true, answered: false, done };
    });
  }

  /** Resolves once a chunk containing `marker` was dropped before reaching the server. */
  cutBefore(marker: string, options: CutOptions = {}): Promise<void> {
    return new Promise((done) => {
      this.cut = { marker, at: options.at, deliver: false, done };
    });
  }

  /** Cuts every open connection. */
  dropAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private accept(client: Socket, host: string, port: number): void {
    if (this.refusing) {
      client.destroy();
      return;
    }
    const upstream = tcpConnect(port, host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    const cutBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', cutBoth);
    upstream.on('close', cutBoth);
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    /** The cut this connection sent the marker of, waiting for its `at`. */
    let armed: Cut | undefined;
    /** The end of what the connection sent before: a marker may straddle two chunks. */
    let tail = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      const seen = Buffer.concat([tail, chunk]);
      tail = seen.subarray(-MARKER_SPAN);
      let cut = armed;
      if (cut?.at !== undefined && seen.includes(cut.at)) {
        armed = undefined;
      } else {
        cut = this.cut;
        if (!cut || !seen.includes(cut.marker)) {
          upstream.write(chunk);
          return;
        }
        this.cut = undefined;
        if (cut.at !== undefined) {
          armed = cut;
          upstream.write(chunk);
          return;
        }
      }
      if (!cut.deliver) {
        cutBoth();
        cut.done();
        return;
      }
      if (cut.answered === false) {
        // Sent, then both sides closed: end() still flushes the chunk to the server (the
        // client's close must not destroy the server side before it has).
        upstream.removeAllListeners('data');
        client.off('close', cutBoth);
        upstream.end(chunk);
        client.destroy();
        cut.done();
        return;
      }
      // The server's answer proves it ran the command; the client never gets it.
      upstream.removeAllListeners('data');
      upstream.once('data', () => {
        cutBoth();
        cut.done();
      });
      upstream.write(chunk);
    });
  }
}
