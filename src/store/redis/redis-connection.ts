import { readFileSync } from 'node:fs';
import { type ChainableCommander, Redis } from 'ioredis';
import { HoldpointError } from '../../core/errors.js';

const CONNECT_TIMEOUT_MS = 2_000;
const COMMAND_TIMEOUT_MS = 2_000;

/** Server replies that mean "not serving now" rather than "bad command". */
const UNAVAILABLE_REPLIES =
  /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY|MISCONF|NOREPLICAS)/;
/** Client-side failures of ioredis and the socket under it. */
const UNAVAILABLE_MESSAGES =
  /Connection is closed|Stream isn't writeable|Command timed out|Socket timeout|ETIMEDOUT|ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|max retries per request/i;

/** ioredis refused to send the command (the connection was not open): nothing reached Redis. */
const NOT_SENT = /Stream isn't writeable/;

function isUnavailable(error: Error): boolean {
  if (error.name === 'ReplyError') return UNAVAILABLE_REPLIES.test(error.message);
  return error.name === 'MaxRetriesPerRequestError' || UNAVAILABLE_MESSAGES.test(error.message);
}

/** The sources of the Lua scripts, each read from its file once. */
const sources = new Map<string, string>();

/** The source of `lua/<file>.lua`, beside this module in src/ and in dist/ alike. */
function luaSource(file: string): string {
  let source = sources.get(file);
  if (source === undefined) {
    source = readFileSync(new URL(`./lua/${file}.lua`, import.meta.url), 'utf8');
    sources.set(file, source);
  }
  return source;
}

/** A Lua script run with EVALSHA, falling back to EVAL when Redis does not know it yet. */
export type RedisScript = (keys: string[], args: (string | number)[]) => Promise<unknown>;

/**
 * One ioredis connection whose failures surface as HoldpointErrors: anything that
 * means Redis cannot be reached becomes STORE_UNAVAILABLE, promptly, so callers
 * never see raw ioredis errors and never wait on an offline queue.
 */
export class RedisConnection {
  readonly client: Redis;
  private lastError: Error | undefined;
  private closed = false;
  /** The wait for the connection in progress, shared by every operation that waits. */
  private connecting?: Promise<boolean>;

  /**
   * Connects to `target`: a URL, or an existing client whose connection settings
   * (host, TLS, password, db) are reused on a connection of its own, so the
   * caller's client is never reconfigured or closed here.
   */
  constructor(target: string | Redis) {
    const settings = {
      // Queued commands would hide an outage behind a hang; fail them instead.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A command whose reply was lost is failed, never sent again on a new connection:
      // its caller reads what became of it (see write) instead of racing a late resend.
      autoResendUnfulfilledCommands: false,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // Keep reconnecting forever: the store comes back when Redis does.
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
      lazyConnect: false,
      // Auto-pipelining holds every command back a loop turn and wraps it in a pipeline;
      // measured (npm run bench), sending each command at once is faster for a run's
      // few commands per round trip.
      enableAutoPipelining: false,
      keyPrefix: undefined,
    };
    this.client =
      typeof target === 'string' ? new Redis(target, settings) : target.duplicate(settings);
    // Without a listener ioredis logs every failed reconnect; the last one explains outages.
    this.client.on('error', (error: Error) => {
      this.lastError = error;
    });
    this.client.on('ready', () => {
      this.lastError = undefined;
    });
  }

  /**
   * Whether Redis is known to be unreachable now: the connection is not ready and the
   * latest news of it is a failure (an outage, not a first connection still under way).
   */
  get failing(): boolean {
    return this.client.status !== 'ready' && this.lastError !== undefined;
  }

  /**
   * Runs `operation` once the connection is ready; every failure becomes a
   * HoldpointError. On a ready connection the operation starts at once, so the
   * commands it sends first leave before the caller's next line runs.
   */
  run<T>(operation: (client: Redis) => Promise<T>): Promise<T> {
    if (this.client.status !== 'ready') return this.runWhenReady(operation);
    try {
      return operation(this.client).catch((error: unknown) => {
        throw this.toHoldpointError(error);
      });
    } catch (error) {
      return Promise.reject(this.toHoldpointError(error));
    }
  }

  /**
   * Runs a write like `run`, except that a failure once the write may have reached
   * Redis (the connection dropped or the command timed out before the reply came) is
   * OUTCOME_UNKNOWN: it may or may not have been applied. STORE_UNAVAILABLE from a
   * write means nothing was sent.
   */
  write<T>(operation: (client: Redis) => Promise<T>): Promise<T> {
    return this.run((client) =>
      operation(client).catch((error: unknown) => {
        const failure = this.toHoldpointError(error);
        const cause = error instanceof Error ? error.message : String(error);
        if (failure.code !== 'STORE_UNAVAILABLE' || NOT_SENT.test(cause)) throw failure;
        throw new HoldpointError(
          'OUTCOME_UNKNOWN',
          `The store stopped answering after a write was sent (${cause}).`,
        );
      }),
    );
  }

  private async runWhenReady<T>(operation: (client: Redis) => Promise<T>): Promise<T> {
    try {
      await this.ready();
      return await operation(this.client);
    } catch (error) {
      throw this.toHoldpointError(error);
    }
  }

  /**
   * Defines the Lua script `lua/<name>.lua` (its header documents its KEYS and ARGV) on
   * this connection: ioredis sends EVALSHA, then EVAL on NOSCRIPT.
   */
  script(file: string): RedisScript {
    const name = `holdpoint_${file.replaceAll('-', '_')}`;
    this.client.defineCommand(name, { lua: luaSource(file) });
    const commands = this.client as unknown as Record<
      string,
      (numberOfKeys: number, ...keysAndArgs: (string | number)[]) => Promise<unknown>
    >;
    return (keys, args) => {
      const command = commands[name];
      if (!command) throw new Error(`Lua script ${name} is not defined`);
      return command.call(this.client, keys.length, ...keys, ...args);
    };
  }

  /** Executes a pipeline or transaction and throws its first failed command's error. */
  async exec(commands: ChainableCommander): Promise<unknown[]> {
    const replies = await commands.exec();
    if (!replies) throw new Error('Redis aborted the transaction');
    return replies.map(([error, reply]) => {
      if (error) throw error;
      return reply;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        // Redis went away while quitting: dropping the socket is all that is left to do.
      }
    }
    this.client.disconnect();
  }

  /**
   * Waits for a (re)connection in progress, at most as long as one connect attempt.
   * Every operation waiting meanwhile shares one wait (and one listener).
   */
  private async ready(): Promise<void> {
    if (this.client.status === 'ready') return;
    if (this.closed || this.client.status === 'end') {
      throw new HoldpointError('STORE_UNAVAILABLE', 'The store is unavailable: it is closed.');
    }
    this.connecting ??= new Promise<boolean>((resolve) => {
      const onReady = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.client.off('ready', onReady);
        resolve(false);
      }, CONNECT_TIMEOUT_MS);
      this.client.once('ready', onReady);
    }).finally(() => {
      this.connecting = undefined;
    });
    if (!(await this.connecting)) {
      const reason = this.lastError?.message ?? `cannot connect (status ${this.client.status})`;
      throw new HoldpointError('STORE_UNAVAILABLE', `The store is unavailable: ${reason}`);
    }
  }

  private toHoldpointError(error: unknown): HoldpointError {
    if (error instanceof HoldpointError) return error;
    const cause = error instanceof Error ? error : new Error(String(error));
    if (isUnavailable(cause)) {
      return new HoldpointError('STORE_UNAVAILABLE', `The store is unavailable: ${cause.message}`);
    }
    return new HoldpointError('INTERNAL', `The store failed: ${cause.message}`);
  }
}
