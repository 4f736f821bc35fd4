import { SSEStreamingApi } from 'hono/streaming';
import type { Logger } from 'pino';
import type { Principal } from '../../core/principal.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { InboxSummary } from '../../runtime/queries/inbox-watch.js';
import type * as wire from './wire/index.js';

/** How often an idle inbox stream sends a comment, so proxies keep it open. */
export const INBOX_HEARTBEAT_MS = 15_000;
/** The least time between two recounts of one stream: a burst of news costs one query. */
export const INBOX_RECOUNT_MS = 250;

/** The inbox summary as the stream sends it (`event: inbox`). */
export function presentInbox(summary: InboxSummary): wire.InboxEvent {
  return {
    pending: summary.pending,
    more: summary.more,
    approvals: summary.approvals.map((entry) => ({
      approval_id: entry.approvalId,
      tool_name: entry.toolName,
      session_id: entry.sessionId,
      app: entry.app,
    })),
  };
}

/**
 * Recounts at most once per INBOX_RECOUNT_MS and never two at once: news arriving while
 * a recount waits or runs makes one more recount after it, however much arrives.
 */
class Recounter {
  private timer?: NodeJS.Timeout;
  private running = false;
  private again = false;
  private lastStart = 0;
  private stopped = false;

  constructor(private readonly recount: () => Promise<void>) {}

  /** Asks for a recount. */
  request(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    if (this.running || this.timer) return;
    const wait = Math.max(0, this.lastStart + INBOX_RECOUNT_MS - Date.now());
    this.timer = setTimeout(() => void this.run(), wait);
  }

  /** Recounts now (the first count), then as asked. */
  async run(): Promise<void> {
    this.timer = undefined;
    if (this.stopped) return;
    this.running = true;
    this.again = false;
    this.lastStart = Date.now();
    try {
      await this.recount();
    } finally {
      this.running = false;
      if (this.again) this.request();
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}

/**
 * `GET /api/approvals/events`: `by`'s inbox as Server-Sent Events. An `inbox` event
 * with the count of what they may decide (and the first few approvals) once the stream
 * is subscribed to the store's inbox news, then again after each commit that may have
 * changed it (recounted at most every INBOX_RECOUNT_MS), and a comment every
 * INBOX_HEARTBEAT_MS on the runtime's clock. When the client goes, or the runtime stops,
 * the stream, its subscription and its heartbeat end. TOO_MANY_INBOX_STREAMS (before any byte is sent) when `by`
 * holds as many streams as they may.
 */
export async function inboxEvents(
  runtime: HoldpointRuntime,
  by: Principal,
  logger: Logger,
): Promise<Response> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const stream = new SSEStreamingApi(writable, readable);
  let failed = false;
  const recounter = new Recounter(async () => {
    try {
      const summary = await runtime.operations.getInboxSummary({}, by);
      await stream.writeSSE({ event: 'inbox', data: JSON.stringify(presentInbox(summary)) });
    } catch (error) {
      // The store is away for now: the next news or the client's reconnect counts again.
      if (!failed) logger.warn({ err: error, principal: by.id }, 'inbox count failed');
      failed = true;
      return;
    }
    failed = false;
  });
  // Subscribed before the first count, so nothing stored in between is missed.
  const unsubscribe = await runtime.watchInbox(
    by,
    () => recounter.request(),
    () => stream.abort(),
  );
  const stopBeat = runtime.clock.every(INBOX_HEARTBEAT_MS, () => void stream.write(': beat\n\n'));
  stream.onAbort(async () => {
    stopBeat();
    recounter.stop();
    await unsubscribe();
  });
  void recounter.run();
  return new Response(stream.responseReadable, {
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      // A buffering proxy (nginx) would hold the events back.
      'x-accel-buffering': 'no',
    },
  });
}
