import { signedInAs } from './json-client.js';

/** One `inbox` event as `GET /api/approvals/events` sends it. */
export interface InboxEvent {
  pending: number;
  more: boolean;
  approvals: { approval_id: string; tool_name: string; session_id: string; app: string }[];
}

/**
 * Test support: a client of `GET /api/approvals/events` over fetch, reading the stream
 * as it comes: its `inbox` events in order (each taken once with `next`) and how many
 * comments (heartbeats) arrived.
 */
export class InboxStream {
  private readonly events: InboxEvent[] = [];
  private taken = 0;
  private readonly waiters = new Set<() => void>();
  /** Heartbeat comments received so far. */
  comments = 0;
  /** Set once the server ended the stream or the connection failed. */
  ended = false;

  private constructor(private readonly abort: AbortController) {}

  /**
   * Opens the stream as `user` with `roles` (the server's `dev` sign-in); the stream, or
   * the refusal's status and JSON body.
   */
  static async open(
    base: string,
    user: string,
    roles: string[] = [],
  ): Promise<InboxStream | { status: number; body: unknown }> {
    const abort = new AbortController();
    const response = await fetch(`${base}/api/approvals/events`, {
      headers: { accept: 'text/event-stream', ...signedInAs(user, roles) },
      signal: abort.signal,
    });
    if (response.status !== 200 || !response.body) {
      return { status: response.status, body: await response.json() };
    }
    const stream = new InboxStream(abort);
    void stream.read(response.body);
    return stream;
  }

  /** The next `inbox` event not taken yet, once it arrives. */
  async next(): Promise<InboxEvent> {
    for (;;) {
      const event = this.events[this.taken];
      if (event) {
        this.taken++;
        return event;
      }
      if (this.ended) throw new Error('the inbox stream ended');
      await this.news();
    }
  }

  /** How many `inbox` events arrived and were not taken yet. */
  get untaken(): number {
    return this.events.length - this.taken;
  }

  /** Resolves once `count` comments arrived in all. */
  async commentsReach(count: number): Promise<void> {
    while (this.comments < count) {
      if (this.ended) throw new Error('the inbox stream ended');
      await this.news();
    }
  }

  /** Resolves once anything arrives or the stream ends. */
  private news(): Promise<void> {
    return new Promise((resolve) => this.waiters.add(resolve));
  }

  private wake(): void {
    for (const waiter of this.waiters) waiter();
    this.waiters.clear();
  }

  /** Goes away, as a closed tab does. */
  close(): void {
    this.abort.abort();
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          this.take(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
        this.wake();
      }
    } catch {
      // Aborted by close(), or the server went away.
    } finally {
      this.ended = true;
      this.wake();
    }
  }

  /** One block of the stream: a comment, or an event with its data. */
  private take(block: string): void {
    const lines = block.split('\n');
    if (lines.every((line) => line.startsWith(':'))) {
      this.comments++;
      return;
    }
    const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
    const data = lines
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length))
      .join('\n');
    if (event === 'inbox') this.events.push(JSON.parse(data) as InboxEvent);
  }
}
