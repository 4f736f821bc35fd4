import type { Redis } from 'ioredis';
import { INBOX_CHANNEL } from '../inbox-news.js';
import { channelSession, type RunRelay, type Unsubscribe } from '../run-relay.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

/** How long a watch marker lives unless its process keeps it. */
const WATCH_MS = 30_000;
/** How often a process keeps the markers of the sessions it listens to. */
const KEEP_WATCH_MS = 10_000;
/** Sessions remembered as watched at most; the oldest news is forgotten first. */
const MAX_WATCHED = 10_000;

/**
 * The relay over Redis pub/sub: any instance sharing the Redis receives a session's
 * messages. A listener marks its session watched (`RedisKeys.watched`, kept while it
 * listens, expiring soon after), and every read and commit of a session answers whether
 * it is marked (`noteWatched`), so a message is published only to a session someone
 * watches: a run nobody watches costs no PUBLISH at all. The inbox channel
 * (INBOX_CHANNEL) follows the same rule with a marker of its own
 * (`RedisKeys.inboxWatched`), answered by every commit: inbox news costs no PUBLISH
 * while no inbox listens anywhere. Subscriptions use one extra
 * connection per process, opened on first use; ioredis subscribes again after a
 * reconnect.
 */
export class RedisRelay implements RunRelay {
  private subscriber?: Redis;
  private readonly handlers = new Map<string, Set<(message: unknown) => void>>();
  /** Sessions whose latest read or commit here found them watched, oldest news first. */
  private readonly watched = new Set<string>();
  /** Whether the latest commit here found someone listening to the inbox channel. */
  private inboxWatched = false;
  private keeper?: NodeJS.Timeout;

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
  ) {}

  publish(channel: string, message: unknown): void {
    const listened =
      channel === INBOX_CHANNEL ? this.inboxWatched : this.watched.has(channelSession(channel));
    if (!this.handlers.has(channel) && !listened) return;
    this.conn.client.publish(this.keys.relay(channel), JSON.stringify(message)).catch(() => {
      // Best effort by contract: the store holds the truth, waiters re-read it.
    });
  }

  /** What a read or commit of the session found: whether anyone watches it now. */
  noteWatched(sessionId: string, watched: boolean): void {
    this.watched.delete(sessionId);
    if (!watched) return;
    this.watched.add(sessionId);
    if (this.watched.size > MAX_WATCHED) {
      for (const oldest of this.watched) {
        this.watched.delete(oldest);
        break;
      }
    }
  }

  /** What a commit found: whether anyone listens to the inbox channel now. */
  noteInboxWatched(watched: boolean): void {
    this.inboxWatched = watched;
  }

  async subscribe(channel: string, handler: (message: unknown) => void): Promise<Unsubscribe> {
    const key = this.keys.relay(channel);
    const subscriber = this.connectSubscriber();
    let handlers = this.handlers.get(channel);
    if (!handlers) {
      handlers = new Set();
      this.handlers.set(channel, handlers);
    }
    handlers.add(handler);
    if (handlers.size === 1) {
      try {
        // Subscribed before marked: whoever publishes because of the mark reaches us.
        await this.conn.run(() => subscriber.subscribe(key));
        await this.conn.run((redis) => this.mark(redis, [this.marker(channel)]).exec());
      } catch (error) {
        handlers.delete(handler);
        this.handlers.delete(channel);
        await subscriber.unsubscribe(key).catch(() => {});
        throw error;
      }
      this.keeper ??= setInterval(() => this.keepMarks(), KEEP_WATCH_MS).unref();
    }
    return async () => {
      handlers.delete(handler);
      if (handlers.size === 0 && this.handlers.get(channel) === handlers) {
        this.handlers.delete(channel);
        if (this.handlers.size === 0) this.stopKeeping();
        // The mark expires by itself: another process may still listen.
        await subscriber.unsubscribe(key).catch(() => {});
      }
    };
  }

  /** Closes the subscriber connection. */
  async close(): Promise<void> {
    this.stopKeeping();
    this.subscriber?.disconnect();
  }

  /** The marker key that says someone listens to `channel`. */
  private marker(channel: string): string {
    return channel === INBOX_CHANNEL
      ? this.keys.inboxWatched()
      : this.keys.watched(channelSession(channel));
  }

  /** A pipeline setting the `markers` (keys) for the next WATCH_MS. */
  private mark(redis: Redis, markers: string[]) {
    const pipeline = redis.pipeline();
    for (const marker of markers) pipeline.set(marker, '1', 'PX', WATCH_MS);
    return pipeline;
  }

  /** Sets the markers of every channel listened to here again; a failure is retried on the next beat. */
  private keepMarks(): void {
    const markers = [...new Set([...this.handlers.keys()].map((channel) => this.marker(channel)))];
    if (markers.length === 0 || this.conn.failing) return;
    this.mark(this.conn.client, markers)
      .exec()
      .catch(() => {
        // Marks last three beats: one missed beat loses none.
      });
  }

  private stopKeeping(): void {
    clearInterval(this.keeper);
    this.keeper = undefined;
  }

  private connectSubscriber(): Redis {
    if (!this.subscriber) {
      // A connection in subscriber mode can do nothing else, hence its own.
      // It may queue its first SUBSCRIBE while connecting; the command timeout still bounds it.
      const subscriber = this.conn.client.duplicate({ enableOfflineQueue: true });
      subscriber.on('error', () => {});
      subscriber.on('message', (key: string, text: string) => {
        const handlers = this.handlers.get(key.slice(this.keys.relay('').length));
        if (!handlers) return;
        let message: unknown;
        try {
          message = JSON.parse(text);
        } catch {
          return;
        }
        for (const handler of handlers) handler(message);
      });
      this.subscriber = subscriber;
    }
    return this.subscriber;
  }
}
