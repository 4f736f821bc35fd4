import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { type HoldpointConfig, loadConfig } from '../src/config/config.js';
import { holdpointFromConfig } from '../src/main/holdpoint-from-config.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { adkBaselineCycle } from './adk-baseline.js';
import { durableFloorCycle, httpCycle, inProcessCycle } from './holdpoint-cycles.js';
import type { Cycle } from './measure.js';

/** A cycle to time, and what to release once it has been timed. */
export interface Scenario {
  name: string;
  cycle: Cycle;
  close(): Promise<void>;
}

/**
 * Where a Holdpoint keeps its state: `sqlite` in a data directory, `postgres` in a
 * database and `redis` under a key prefix, each the scenario's own.
 */
export type StoreChoice =
  | { store: 'memory' }
  | { store: 'sqlite'; dataDir: string }
  | { store: 'postgres'; url: string }
  | { store: 'redis'; url: string; prefix: string };

/**
 * The config a real process would load, pinned to the offline model and silent
 * logs; `extra` flags are appended.
 */
export function benchConfig(choice: StoreChoice, extra: string[] = []): HoldpointConfig {
  const argv = ['--model', 'rules', '--log-level', 'silent', '--store', choice.store, ...extra];
  argv.push('--app', fileURLToPath(new URL('../examples/image-studio/app.ts', import.meta.url)));
  if (choice.store === 'redis')
    argv.push('--redis-url', choice.url, '--redis-prefix', choice.prefix);
  if (choice.store === 'sqlite') argv.push('--data-dir', choice.dataDir);
  if (choice.store === 'postgres') argv.push('--postgres-url', choice.url);
  argv.push('--host', '127.0.0.1', '--port', '0');
  // One principal drives every cycle: rate limits far above what it can reach, so the
  // counters are counted (their cost is part of a request) but never refuse.
  argv.push('--rate-limit', '100000000', '--run-rate-limit', '100000000');
  // Its streamed chats each open a socket of their own, more than one person would.
  argv.push('--sockets-per-principal', '0');
  // An empty environment, so a GEMINI_API_KEY or REDIS_URL of the shell cannot leak in.
  return loadConfig(argv, {});
}

/** The runtime called directly: no transport at all. */
export async function inProcess(name: string, choice: StoreChoice): Promise<Scenario> {
  const { runtime } = await holdpointFromConfig(benchConfig(choice));
  return { name, cycle: inProcessCycle(runtime.operations), close: () => runtime.close() };
}

/**
 * The memory-store runtime with one awaited PING to the Redis at `url` behind each
 * answer: what making each answer durable costs at the very least.
 */
export async function durableFloor(name: string, url: string): Promise<Scenario> {
  const { runtime } = await holdpointFromConfig(benchConfig({ store: 'memory' }));
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  return {
    name,
    cycle: durableFloorCycle(runtime, () => redis.ping()),
    close: async () => {
      redis.disconnect();
      await runtime.close();
    },
  };
}

/** The real HTTP server on an ephemeral 127.0.0.1 port, called with fetch. */
export async function overHttp(name: string, choice: StoreChoice): Promise<Scenario> {
  const server = await startServer(benchConfig(choice));
  return { name, cycle: httpCycle(`http://127.0.0.1:${server.port}`), close: server.close };
}

/**
 * A real server for the streaming scenarios; approvals wait up to 10 minutes, so
 * no timeout policy fires while a loaded server is slow to deliver a decision.
 * Its store has answered once before it is returned, so the first round of chats
 * does not all wait for the Redis connection to come up.
 */
export async function streamServer(choice: StoreChoice): Promise<RunningServer> {
  const server = await startServer(benchConfig(choice, ['--approval-timeout', '600']));
  const health = await server.holdpoint.runtime.health();
  if (health.status !== 'ok') {
    await server.close();
    throw new Error(`the ${choice.store} store did not answer: ${health.code}`);
  }
  return server;
}

/** The same agent on bare ADK. */
export function bareAdk(name: string): Scenario {
  return { name, cycle: adkBaselineCycle(), close: async () => {} };
}
