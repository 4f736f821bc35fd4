import type { Redis } from 'ioredis';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import type { RunRelay, Unsubscribe } from './run-relay.js';

/** How long a subscriber's mark says "someone waits here"; renewed while subscribed. */
const WAITING_MS = 60_000;
// Marks only a session that exists: a mark on a gone one would leave a key behind
// with no expiry.
const MARK_WAITING_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSET', KEYS[1], 'waitingUntil', ARGV[1])
`;

/**
 * The relay over Redis pub/sub: any instance sharing the Redis receives a
 * session's messages. Subscriptions use one extra connection per process,
 * opened on first use; ioredis re-subscribes after a reconnect.
 *
 * A subscriber marks the session's meta hash (`waitingUntil`) before it relies on
 * the relay; the store reads that mark with every transition, and a run segment
 * publishes only when someone waits — most runs have nobody listening, and each
 * PUBLISH costs a socket write.
 */
export class RedisRelay implements RunRelay {
  private subscriber?: Redis;
  private readonly handlers = new Map<string, Set<(message: unknown) => void>>();
  private readonly waiting = new Map<string, number>();
  private readonly renewals = new Map<string, NodeJS.Timeout>();
  private readonly mark: RedisScript;

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
  ) {
    this.mark = conn.script('holdpointMarkWaiting', MARK_WAITING_LUA);
  }

  /** Records until when someone waits on the session, as read from its meta. */
  noteWaiting(sessionId: string, until: number): void {
    if (until > Date.now()) this.waiting.set(sessionId, until);
    else this.waiting.delete(sessionId);
  }

  publish(sessionId: string, message: unknown): void {
    const until = this.waiting.get(sessionId) ?? 0;
    if (until <= Date.now() && !this.handlers.has(this.keys.relay(sessionId))) {
      this.waiting.delete(sessionId);
      return;
    }
    this.conn.client.publish(this.keys.relay(sessionId), JSON.stringify(message)).catch(() => {
      // Best effort by contract: the store holds the truth, waiters re-read it.
    });
  }

  async subscribe(sessionId: string, handler: (message: unknown) => void): Promise<Unsubscribe> {
    const channel = this.keys.relay(sessionId);
    const subscriber = this.connectSubscriber();
    let handlers = this.handlers.get(channel);
    if (!handlers) {
      handlers = new Set();
      this.handlers.set(channel, handlers);
    }
    handlers.add(handler);
    const first = handlers.size === 1;
    if (first) {
      try {
        await this.conn.run(() => subscriber.subscribe(channel));
        await this.markWaiting(sessionId);
        this.renewals.set(
          sessionId,
          setInterval(() => {
            this.markWaiting(sessionId).catch(() => {});
          }, WAITING_MS / 3).unref(),
        );
      } catch (error) {
        handlers.delete(handler);
        this.handlers.delete(channel);
        throw error;
      }
    }
    return async () => {
      handlers.delete(handler);
      if (handlers.size === 0) {
        this.handlers.delete(channel);
        clearInterval(this.renewals.get(sessionId));
        this.renewals.delete(sessionId);
        await subscriber.unsubscribe(channel).catch(() => {});
      }
    };
  }

  private async markWaiting(sessionId: string): Promise<void> {
    const until = Date.now() + WAITING_MS;
    await this.conn.run(() => this.mark([this.keys.meta(sessionId)], [until]));
    this.noteWaiting(sessionId, until);
  }

  /** Closes the subscriber connection. */
  async close(): Promise<void> {
    for (const timer of this.renewals.values()) clearInterval(timer);
    this.renewals.clear();
    this.subscriber?.disconnect();
  }

  private connectSubscriber(): Redis {
    if (!this.subscriber) {
      // A connection in subscriber mode can do nothing else, hence its own.
      // It may queue its first SUBSCRIBE while connecting; the command timeout still bounds it.
      const subscriber = this.conn.client.duplicate({
        enableAutoPipelining: false,
        enableOfflineQueue: true,
      });
      subscriber.on('error', () => {});
      subscriber.on('message', (channel: string, text: string) => {
        const handlers = this.handlers.get(channel);
        if (!handlers) return;
        const message: unknown = JSON.parse(text);
        for (const handler of handlers) handler(message);
      });
      this.subscriber = subscriber;
    }
    return this.subscriber;
  }
}
