import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { HoldpointError } from '../../core/errors.js';
import { INBOX_CHANNEL } from '../inbox-news.js';
import { channelSession, type Unsubscribe } from '../run-relay.js';
import type { ListenedRelay, SqlParam, StatementOptions } from '../sql/sql-driver.js';

/** The one NOTIFY channel of a database: every relay channel travels inside its payloads. */
export const RELAY_NOTIFY_CHANNEL = 'holdpoint_relay';
/**
 * The largest payload sent inline. PostgreSQL refuses a NOTIFY payload of 8,000 bytes or
 * more; a larger message is stored in `hp_relay` and its NOTIFY carries only the row id.
 */
export const MAX_INLINE_PAYLOAD_BYTES = 7_900;
/** How long a stored large message stays readable (`purgeExpired` removes it after). */
export const STORED_MESSAGE_TTL_MS = 60_000;
/** How long a channel's hp_listened row lasts unless its listener keeps it. */
export const LISTENED_MS = 30_000;
/** How often a listener keeps its channels' rows. */
const KEEP_LISTENED_MS = 10_000;
/** Sessions remembered as listened to at most; the oldest news is forgotten first. */
const MAX_LISTENED = 10_000;
/** The first wait before connecting the listener again; doubled per failure up to the max. */
const FIRST_RECONNECT_MS = 100;
const MAX_RECONNECT_MS = 5_000;

/**
 * What travels in a NOTIFY: the message itself, or the id of its `hp_relay` row. `seq`
 * tells apart equal messages sent in one statement, which PostgreSQL would fold into one.
 */
type Notice = { channel: string; seq: number } & ({ message: unknown } | { id: string });

/** How the relay reaches the database. */
export interface PostgresRelayOptions {
  /** The store's pool: its options open the listening connection. */
  pool: pg.Pool;
  /**
   * Runs the relay's publishing statements. Default: the pool's `query`; the store's
   * driver gives its own, so they take their turn at the connections like its others.
   */
  query?: (sql: string, params: SqlParam[], options?: StatementOptions) => Promise<unknown>;
  /** Opens the listening connection. Default: a new `pg.Client` with the pool's options. */
  connectListener?: () => pg.Client;
  /** The clock of stored messages' expiry. Default `Date.now`. */
  now?: () => number;
}

/**
 * The relay over PostgreSQL LISTEN/NOTIFY: every handle of a database (any process)
 * hears every message published through any other, on one NOTIFY channel per database
 * whose payload names the relay channel. Publishing goes through the pool, one send at
 * a time so messages arrive in publish order, whatever a send was waiting for going out
 * together in the next one; listening holds one connection of its own per relay, opened
 * by the first subscription, connected again with backoff (and LISTENing again) when it
 * drops. Messages published while it is down are lost, as the contract allows: the
 * store is the record. As on Redis, a message goes out only where someone listens: a
 * listener keeps a row of its channel in hp_listened (its session's id, or the inbox
 * channel; kept every few seconds while it listens, ending soon after), and each read
 * and commit of a session answers whether its row is there (`noteListened`), every
 * commit whether the inbox's is (`noteInboxListened`): a run nobody watches sends no
 * NOTIFY, and learning that costs no round trip of its own.
 */
export class PostgresRelay implements ListenedRelay {
  private readonly handlers = new Map<string, Set<(message: unknown) => void>>();
  /** Messages published while a send was under way: the next send takes them all. */
  private pending: { channel: string; message: unknown }[] = [];
  /** The send under way, and the ones after it while messages keep coming. */
  private flushing?: Promise<void>;
  private seq = 0;
  /** The listening connection, once it LISTENs (or while it is being opened). */
  private listener?: Promise<pg.Client>;
  /** Notices handled one after another, so a large message read from its row keeps its place. */
  private delivering: Promise<void> = Promise.resolve();
  private reconnectMs = FIRST_RECONNECT_MS;
  private reconnectTimer?: NodeJS.Timeout;
  private closed = false;
  private query: NonNullable<PostgresRelayOptions['query']>;
  /** Sessions whose latest read or commit here found someone listening, oldest news first. */
  private readonly listened = new Set<string>();
  /** Whether the latest commit here found someone listening to the inbox channel. */
  private inboxListened = false;
  private keeper?: NodeJS.Timeout;
  private readonly connectListener: () => pg.Client;
  private readonly now: () => number;

  constructor(options: PostgresRelayOptions) {
    this.query = options.query ?? ((sql, params) => options.pool.query(sql, params));
    this.connectListener =
      options.connectListener ?? (() => new pg.Client(options.pool.options as pg.ClientConfig));
    this.now = options.now ?? Date.now;
  }

  /**
   * Sends the relay's statements through `query` from now on: the store's own, which
   * waits for the schema check (hp_listened is part of the schema).
   */
  route(query: NonNullable<PostgresRelayOptions['query']>): void {
    this.query = query;
  }

  noteListened(sessionId: string, listened: boolean): void {
    this.listened.delete(sessionId);
    if (!listened) return;
    this.listened.add(sessionId);
    if (this.listened.size > MAX_LISTENED) {
      for (const oldest of this.listened) {
        this.listened.delete(oldest);
        break;
      }
    }
  }

  noteInboxListened(listened: boolean): void {
    this.inboxListened = listened;
  }

  publish(channel: string, message: unknown): void {
    if (this.closed) return;
    const listened =
      channel === INBOX_CHANNEL ? this.inboxListened : this.listened.has(channelSession(channel));
    if (!listened && !this.handlers.has(channel)) return;
    this.pending.push({ channel, message });
    this.flushing ??= this.flush();
  }

  async subscribe(channel: string, handler: (message: unknown) => void): Promise<Unsubscribe> {
    if (this.closed) throw new HoldpointError('STORE_UNAVAILABLE', 'The relay is closed.');
    let handlers = this.handlers.get(channel);
    if (!handlers) {
      handlers = new Set();
      this.handlers.set(channel, handlers);
    }
    handlers.add(handler);
    try {
      await this.listening();
      // LISTENing before marked: whoever publishes because of the mark reaches us.
      if (handlers.size === 1) await this.mark([listenedChannel(channel)]);
    } catch (error) {
      handlers.delete(handler);
      if (handlers.size === 0) this.handlers.delete(channel);
      const reason = error instanceof Error ? error.message : String(error);
      if (error instanceof HoldpointError) throw error;
      throw new HoldpointError('STORE_UNAVAILABLE', `PostgreSQL cannot be reached: ${reason}`);
    }
    this.keeper ??= setInterval(() => this.keepMarks(), KEEP_LISTENED_MS).unref();
    return async () => {
      handlers.delete(handler);
      if (handlers.size === 0 && this.handlers.get(channel) === handlers) {
        // Its row ends by itself: another process may still listen.
        this.handlers.delete(channel);
        if (this.handlers.size === 0) this.stopKeeping();
      }
    };
  }

  /** Resolves once every message published so far was sent, or given up on. */
  async settled(): Promise<void> {
    await this.flushing;
  }

  /** Stops listening and publishing; messages still being sent are dropped. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopKeeping();
    clearTimeout(this.reconnectTimer);
    const listener = this.listener;
    this.listener = undefined;
    const client = await listener?.catch(() => undefined);
    await client?.end().catch(() => undefined);
  }

  /** Marks `channels` (hp_listened rows) as listened to for the next LISTENED_MS. */
  private async mark(channels: string[]): Promise<void> {
    await this.query(
      `INSERT INTO hp_listened (channel, until_at) SELECT channel, $2 FROM unnest($1::text[]) AS c (channel)
       ON CONFLICT (channel) DO UPDATE SET until_at = GREATEST(hp_listened.until_at, excluded.until_at)`,
      [channels, this.now() + LISTENED_MS],
    );
  }

  /** Marks every channel listened to here again; a failure is tried again on the next beat. */
  private keepMarks(): void {
    const channels = [...new Set([...this.handlers.keys()].map(listenedChannel))];
    if (channels.length === 0 || this.closed) return;
    this.mark(channels).catch(() => {
      // Rows last three beats: one missed beat loses none.
    });
  }

  private stopKeeping(): void {
    clearInterval(this.keeper);
    this.keeper = undefined;
  }

  /**
   * Sends what was published, in order, one statement per batch: a burst of messages
   * costs one round trip, not one each.
   */
  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      await this.send(batch).catch(() => {
        // Best effort by contract: the store holds the truth, waiters re-read it.
      });
    }
    this.flushing = undefined;
  }

  /**
   * Sends `batch` in one statement: each message inline when it fits a NOTIFY, else
   * stored in `hp_relay` (in the same statement, so before its NOTIFY is delivered) with
   * its id sent instead.
   */
  private async send(batch: { channel: string; message: unknown }[]): Promise<void> {
    const payloads: string[] = [];
    const stored: { id: string; channel: string; message: string }[] = [];
    for (const { channel, message } of batch) {
      const seq = this.seq++;
      const inline = JSON.stringify({ channel, seq, message } satisfies Notice);
      if (Buffer.byteLength(inline) <= MAX_INLINE_PAYLOAD_BYTES) {
        payloads.push(inline);
        continue;
      }
      const id = randomUUID();
      stored.push({ id, channel, message: JSON.stringify(message) });
      payloads.push(JSON.stringify({ channel, seq, id } satisfies Notice));
    }
    // Functions of the select list run after its ORDER BY: the notices go out in order.
    const notify = `SELECT pg_notify($1, payload)
                      FROM unnest($2::text[]) WITH ORDINALITY AS sent (payload, n) ORDER BY n`;
    if (stored.length === 0) {
      await this.query(notify, [RELAY_NOTIFY_CHANNEL, payloads], { prepared: true });
      return;
    }
    await this.query(
      `WITH stored AS (
         INSERT INTO hp_relay (id, channel, message, expires_at)
         SELECT id, channel, message, $6 FROM unnest($3::text[], $4::text[], $5::text[])
           AS rows (id, channel, message)
       ) ${notify}`,
      [
        RELAY_NOTIFY_CHANNEL,
        payloads,
        stored.map((row) => row.id),
        stored.map((row) => row.channel),
        stored.map((row) => row.message),
        this.now() + STORED_MESSAGE_TTL_MS,
      ],
      { prepared: true },
    );
  }

  /** The listening connection: opened and LISTENing before it resolves. */
  private listening(): Promise<pg.Client> {
    if (!this.listener) {
      const opening = this.openListener();
      this.listener = opening;
      opening.catch(() => {
        if (this.listener === opening) this.listener = undefined;
      });
    }
    return this.listener;
  }

  private async openListener(): Promise<pg.Client> {
    const client = this.connectListener();
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      void client.end().catch(() => undefined);
      this.listenerLost(client);
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (notification) => {
      if (notification.channel !== RELAY_NOTIFY_CHANNEL || !notification.payload) return;
      const payload = notification.payload;
      // A handler that throws loses its message, never the ones after it.
      this.delivering = this.delivering
        .then(() => this.deliver(client, payload))
        .catch(() => undefined);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${RELAY_NOTIFY_CHANNEL}`);
    } catch (error) {
      lost = true;
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      throw new HoldpointError('STORE_UNAVAILABLE', 'The relay is closed.');
    }
    this.reconnectMs = FIRST_RECONNECT_MS;
    return client;
  }

  /** The listening connection dropped: forget it, and listen again while anyone subscribes. */
  private listenerLost(client: pg.Client): void {
    void this.listener?.then(
      (current) => {
        if (current === client) {
          this.listener = undefined;
          this.scheduleReconnect();
        }
      },
      () => undefined,
    );
  }

  private scheduleReconnect(): void {
    if (this.closed || this.handlers.size === 0 || this.reconnectTimer) return;
    const wait = this.reconnectMs;
    this.reconnectMs = Math.min(this.reconnectMs * 2, MAX_RECONNECT_MS);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.closed || this.listener) return;
      this.listening().catch(() => this.scheduleReconnect());
    }, wait);
    this.reconnectTimer.unref();
  }

  /** Hands one notice to the channel's handlers, reading a stored message first. */
  private async deliver(client: pg.Client, payload: string): Promise<void> {
    let notice: Notice;
    try {
      notice = JSON.parse(payload) as Notice;
    } catch {
      return;
    }
    if (!this.handlers.has(notice.channel)) return;
    let message: unknown;
    if ('id' in notice) {
      try {
        const { rows } = await client.query<{ message: string }>(
          'SELECT message FROM hp_relay WHERE id = $1',
          [notice.id],
        );
        if (!rows[0]) return;
        message = JSON.parse(rows[0].message);
      } catch {
        // The connection dropped or the row expired: lost, as a message may be.
        return;
      }
    } else {
      message = notice.message;
    }
    for (const handler of this.handlers.get(notice.channel) ?? []) handler(message);
  }
}

/** The hp_listened row that says someone listens to `channel`: its session's, or the inbox's. */
function listenedChannel(channel: string): string {
  return channel === INBOX_CHANNEL ? INBOX_CHANNEL : channelSession(channel);
}
