import type { Redis } from 'ioredis';
import type { RunRelay, Unsubscribe } from '../run-relay.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

/**
 * The relay over Redis pub/sub: any instance sharing the Redis receives a
 * session's messages. Every message is published; subscriptions use one extra
 * connection per process, opened on first use, and ioredis subscribes again after
 * a reconnect.
 */
export class RedisRelay implements RunRelay {
  private subscriber?: Redis;
  private readonly handlers = new Map<string, Set<(message: unknown) => void>>();

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
  ) {}

  publish(sessionId: string, message: unknown): void {
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
    if (handlers.size === 1) {
      try {
        await this.conn.run(() => subscriber.subscribe(channel));
      } catch (error) {
        handlers.delete(handler);
        this.handlers.delete(channel);
        throw error;
      }
    }
    return async () => {
      handlers.delete(handler);
      if (handlers.size === 0 && this.handlers.get(channel) === handlers) {
        this.handlers.delete(channel);
        await subscriber.unsubscribe(channel).catch(() => {});
      }
    };
  }

  /** Closes the subscriber connection. */
  async close(): Promise<void> {
    this.subscriber?.disconnect();
  }

  private connectSubscriber(): Redis {
    if (!this.subscriber) {
      // A connection in subscriber mode can do nothing else, hence its own.
      // It may queue its first SUBSCRIBE while connecting; the command timeout still bounds it.
      const subscriber = this.conn.client.duplicate({ enableOfflineQueue: true });
      subscriber.on('error', () => {});
      subscriber.on('message', (channel: string, text: string) => {
        const handlers = this.handlers.get(channel);
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
