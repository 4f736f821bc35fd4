import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ApprovalEvent, verifyWebhookSignature } from 'holdpoint';

/** One request a webhook receiver got, as it arrived. */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: { delivery_id: string; event: ApprovalEvent };
  /** Whether its signature held (verifyWebhookSignature) when it arrived. */
  valid: boolean;
  /** What the receiver answered (`hang`: nothing, until the sender gave up). */
  answered: number | 'hang';
}

/**
 * Test support: a real webhook receiver (node:http on a free port) that checks each
 * request's signature as a host's receiver would, records it, and answers what the test
 * scripted (`answers`, in order; then `otherwise`). `hang` never answers.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** What the next requests are answered, in order. */
  answers: (number | 'hang')[] = [];
  /** What a request is answered once `answers` ran out. */
  otherwise: number | 'hang' = 200;
  private readonly server: Server;
  private readonly waiters: { count: number; resolve: () => void }[] = [];

  constructor(
    private readonly secret: string,
    private readonly port = 0,
  ) {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        const answered = this.answers.shift() ?? this.otherwise;
        this.received.push({
          headers: request.headers,
          rawBody,
          body: JSON.parse(rawBody),
          valid: verifyWebhookSignature(this.secret, request.headers, rawBody),
          answered,
        });
        for (const waiter of this.waiters.filter((w) => this.received.length >= w.count)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
        if (answered !== 'hang') response.writeHead(answered).end();
      });
    });
  }

  /** Listens; resolves with the URL to configure. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** Resolves once `count` requests have arrived in all. */
  receivedCount(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** The requests of one delivery, in order. */
  of(deliveryId: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.body.delivery_id === deliveryId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
