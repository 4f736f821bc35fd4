import { cpus } from 'node:os';
import { measure, measureInterleaved, type Sample } from './measure.js';
import { type CommandCounts, RedisCounters, type RedisProfile } from './redis-profile.js';
import { acquireRedis } from './redis-target.js';
import { type BenchReport, formatReport, ratio } from './report.js';
import { bareAdk, inProcess, overHttp, type Scenario, type StoreChoice } from './scenarios.js';
import { loadBenchSettings } from './settings.js';
import type { StreamSample } from './stream-measure.js';
import { streamOnServer } from './stream-scenarios.js';

const NAMES = {
  adk: 'bare ADK (Runner + InMemorySessionService)',
  memory: 'in-process, memory store',
  redis: 'in-process, redis store',
  httpMemory: 'http, memory store',
  httpRedis: 'http, redis store',
};

/** Streaming scenarios: the transport (and its protocol), then the store. */
const STREAMS = {
  sse: 'sse two-turn',
  ws: 'ws continuous',
} as const;

const settings = loadBenchSettings();
const redis = await acquireRedis(settings.redisUrl);
const counters = new RedisCounters(redis.url);
const samples = new Map<string, Sample>();
let redisProfile: RedisProfile | undefined;
const streams: StreamSample[] = [];

/** Streams chats over `transport` on a fresh server with `choice` as its store. */
async function stream(transport: keyof typeof STREAMS, choice: StoreChoice): Promise<void> {
  const name = `${STREAMS[transport]}, ${choice.store} store`;
  process.stderr.write(`bench: ${name} …\n`);
  streams.push(
    await streamOnServer(name, transport, choice, {
      concurrency: settings.streamConcurrency,
      warmupRounds: settings.streamWarmupRounds,
      rounds: settings.streamRounds,
      budgetMs: settings.streamBudgetMs,
      chatTimeoutMs: settings.streamChatTimeoutMs,
    }),
  );
}

/** Times one scenario and releases it, whatever happens. */
async function run(
  scenario: Scenario,
  cycles: number,
  hooks: { beforeTimed?: () => Promise<void>; afterTimed?: (n: number) => Promise<void> } = {},
): Promise<void> {
  process.stderr.write(`bench: ${scenario.name} …\n`);
  try {
    const sample = await measure(scenario.name, scenario.cycle, {
      warmupCycles: settings.warmupCycles,
      warmupBudgetMs: settings.warmupBudgetMs,
      cycles,
      budgetMs: settings.measureBudgetMs,
      ...hooks,
    });
    samples.set(scenario.name, sample);
  } finally {
    await scenario.close();
  }
}

/**
 * Bare ADK and the in-process cycles on both stores, timed in alternating rounds so
 * the ratios to bare ADK do not depend on when each ran; then Redis's commands per
 * cycle are counted.
 */
async function inProcessTogether(): Promise<void> {
  const scenarios = [
    bareAdk(NAMES.adk),
    inProcess(NAMES.memory, { store: 'memory' }),
    inProcess(NAMES.redis, { store: 'redis', url: redis.url, prefix: redis.newPrefix() }),
  ];
  const [, , redisScenario] = scenarios;
  let before: CommandCounts = {};
  process.stderr.write(`bench: ${scenarios.map((s) => s.name).join(', ')}, interleaved …\n`);
  try {
    const timed = await measureInterleaved(
      scenarios.map(({ name, cycle }) => ({
        scenario: name,
        cycle,
        ...(name === NAMES.redis && {
          beforeTimed: async () => {
            before = await counters.commandStats();
          },
          afterTimed: async (cycles: number) => {
            redisProfile = RedisCounters.perCycle(before, await counters.commandStats(), cycles);
          },
        }),
      })),
      {
        warmupCycles: settings.warmupCycles,
        warmupBudgetMs: settings.warmupBudgetMs,
        cycles: settings.inProcessCycles,
        budgetMs: settings.measureBudgetMs,
        roundCycles: settings.roundCycles,
      },
    );
    for (const sample of timed) samples.set(sample.scenario, sample);
    // Split client commands from Lua-internal ones on a few more cycles.
    if (redisScenario && redisProfile && settings.monitorCycles > 0) {
      const split = await counters.monitor(redisScenario.cycle, settings.monitorCycles);
      redisProfile.clientCommands = split.client;
      redisProfile.luaCommands = split.lua;
    }
  } finally {
    for (const scenario of scenarios) await scenario.close();
  }
}

try {
  await inProcessTogether();
  await run(await overHttp(NAMES.httpMemory, { store: 'memory' }), settings.httpCycles);
  await run(
    await overHttp(NAMES.httpRedis, { store: 'redis', url: redis.url, prefix: redis.newPrefix() }),
    settings.httpCycles,
  );

  if (settings.streamConcurrency > 0) {
    await stream('sse', { store: 'memory' });
    await stream('ws', { store: 'memory' });
    if (settings.streamRedis) {
      await stream('sse', { store: 'redis', url: redis.url, prefix: redis.newPrefix() });
      await stream('ws', { store: 'redis', url: redis.url, prefix: redis.newPrefix() });
    }
  }
} finally {
  counters.close();
  await redis.close();
}

const order = [NAMES.memory, NAMES.redis, NAMES.httpMemory, NAMES.httpRedis, NAMES.adk];
const ordered = order.flatMap((name) => samples.get(name) ?? []);
const adk = samples.get(NAMES.adk);
const report: BenchReport = {
  node: process.version,
  cpus: cpus().length,
  redis: redis.description,
  samples: ordered,
  ratios: adk
    ? [NAMES.redis, NAMES.memory].flatMap((name) => {
        const sample = samples.get(name);
        return sample ? [ratio(sample, adk)] : [];
      })
    : [],
  redisProfile,
  streams,
};
process.stdout.write(`${formatReport(report)}\n\n${JSON.stringify(report)}\n`);
