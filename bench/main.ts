import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { StoreKind } from '../src/core/store-kinds.js';
import { peerFloors, simpleDesignFloors } from './floors.js';
import { memoryMeter, postgresMeter, redisMeter, sqliteMeter } from './footprint-meters.js';
import { type InFlightSample, measureInFlight } from './in-flight.js';
import { measure, measureInterleaved, type Sample } from './measure.js';
import { measurePausedFootprint, type PausedFootprint } from './paused-footprint.js';
import { type PostgresProfile, profilePostgres } from './postgres-profile.js';
import { acquirePostgres } from './postgres-target.js';
import { RedisInfo } from './redis-info.js';
import { RedisCounters, type RedisProfile } from './redis-profile.js';
import { redisScaleStore } from './redis-scale.js';
import { acquireRedis } from './redis-target.js';
import { type BenchReport, formatReport, ratio } from './report.js';
import { measureScale, type ScaleReport } from './scale.js';
import {
  bareAdk,
  durableFloor,
  inProcess,
  overHttp,
  type Scenario,
  type StoreChoice,
} from './scenarios.js';
import { loadBenchSettings } from './settings.js';
import { postgresScaleStore, sqliteScaleStore } from './sql-scale.js';
import { acquireSqlite } from './sqlite-target.js';
import { measureStoreCalls, type StoreCallProfile } from './store-calls.js';
import { storeCycles } from './store-cycles.js';
import type { StreamSample } from './stream-measure.js';
import { streamOnServer } from './stream-scenarios.js';

const NAMES = {
  adk: 'bare ADK (Runner + InMemorySessionService)',
  memory: 'in-process, memory store',
  sqlite: 'in-process, sqlite store',
  postgres: 'in-process, postgres store',
  redis: 'in-process, redis store',
  floor: 'in-process, durable floor',
  httpMemory: 'http, memory store',
  httpSqlite: 'http, sqlite store',
  httpRedis: 'http, redis store',
};

/** The in-process phase takes at most the time budgets of this many scenarios. */
const BUDGETED_SCENARIOS = 4;

/** The in-process scenario of each store. */
const IN_PROCESS: Record<StoreKind, string> = {
  memory: NAMES.memory,
  sqlite: NAMES.sqlite,
  postgres: NAMES.postgres,
  redis: NAMES.redis,
};

/** Streaming scenarios: the transport (and its protocol), then the store. */
const STREAMS = {
  sse: 'sse two-turn',
  ws: 'ws continuous',
} as const;

const began = performance.now();
const settings = loadBenchSettings();
const redis = await acquireRedis(settings.redisUrl);
const sqlite = acquireSqlite();
const postgres = await acquirePostgres(settings.postgresUrl);
const sql = [`sqlite: a database in ${sqlite.root} (removed after)`];
if (postgres.available) sql.push(`postgres: ${postgres.description}`);
else {
  sql.push(`postgres: skipped, the server cannot be used: ${postgres.reason}`);
  process.stderr.write(`bench: PostgreSQL skipped: ${postgres.reason}\n`);
}
const counters = new RedisCounters(redis.url);
const info = new RedisInfo(redis.url);
const samples = new Map<string, Sample>();
const inFlight = new Map<string, InFlightSample>();
let redisProfile: RedisProfile | undefined;
let httpRedisProfile: RedisProfile | undefined;
let postgresProfile: PostgresProfile | undefined;
const footprints: PausedFootprint[] = [];
const storeCalls: StoreCallProfile[] = [];
const streams: StreamSample[] = [];
const scales: ScaleReport[] = [];

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

/**
 * Times one scenario and releases it, whatever happens; with `profile`, then counts
 * Redis's commands on a few more of its cycles.
 */
async function run(
  scenario: Scenario,
  cycles: number,
  profile?: (profiled: RedisProfile) => void,
): Promise<void> {
  process.stderr.write(`bench: ${scenario.name} …\n`);
  try {
    const sample = await measure(scenario.name, scenario.cycle, {
      warmupCycles: settings.warmupCycles,
      warmupBudgetMs: settings.warmupBudgetMs,
      cycles,
      budgetMs: settings.measureBudgetMs,
    });
    samples.set(scenario.name, sample);
    if (profile && settings.monitorCycles > 0) {
      profile(await counters.profile(scenario.cycle, settings.monitorCycles));
    }
  } finally {
    await scenario.close();
  }
}

/**
 * Bare ADK, the in-process cycles on every store and the durable floor, timed in
 * alternating rounds so the ratios to bare ADK do not depend on when each ran; then
 * Redis's commands and PostgreSQL's statements per cycle are counted on a few more
 * cycles of their stores;
 * then the same run again with many cycles in flight, in alternating slices.
 */
async function inProcessTogether(): Promise<void> {
  const scenarios = [
    bareAdk(NAMES.adk),
    await inProcess(NAMES.memory, { store: 'memory' }),
    await inProcess(NAMES.sqlite, { store: 'sqlite', dataDir: sqlite.newDataDir() }),
    ...(postgres.available
      ? [await inProcess(NAMES.postgres, { store: 'postgres', url: await postgres.newDatabase() })]
      : []),
    await inProcess(NAMES.redis, { store: 'redis', url: redis.url, prefix: redis.newPrefix() }),
    await durableFloor(NAMES.floor, redis.url),
  ];
  const redisScenario = scenarios.find((scenario) => scenario.name === NAMES.redis);
  const postgresScenario = scenarios.find((scenario) => scenario.name === NAMES.postgres);
  process.stderr.write(`bench: ${scenarios.map((s) => s.name).join(', ')}, interleaved …\n`);
  // On a slow machine the time budgets bound this phase, not the cycle counts: they are
  // shared out so the phase takes at most what BUDGETED_SCENARIOS scenarios' budgets add
  // up to, however many stores take part.
  const share = Math.min(1, BUDGETED_SCENARIOS / scenarios.length);
  try {
    const timed = await measureInterleaved(
      scenarios.map(({ name, cycle }) => ({ scenario: name, cycle })),
      {
        warmupCycles: settings.warmupCycles,
        warmupBudgetMs: settings.warmupBudgetMs * share,
        cycles: settings.inProcessCycles,
        budgetMs: settings.measureBudgetMs * share,
        roundCycles: settings.roundCycles,
      },
    );
    for (const sample of timed) samples.set(sample.scenario, sample);
    if (redisScenario && settings.monitorCycles > 0) {
      redisProfile = await counters.profile(redisScenario.cycle, settings.monitorCycles);
    }
    if (postgresScenario && settings.monitorCycles > 0) {
      postgresProfile = await profilePostgres(postgresScenario.cycle, settings.monitorCycles);
    }
    if (settings.inFlightConcurrency > 0) {
      process.stderr.write(`bench: the same, ${settings.inFlightConcurrency} in flight …\n`);
      const loaded = await measureInFlight(
        scenarios.map(({ name, cycle }) => ({ scenario: name, cycle })),
        {
          concurrency: settings.inFlightConcurrency,
          warmupMs: settings.inFlightMs / 5,
          durationMs: settings.inFlightMs,
          sliceMs: settings.inFlightMs / 4,
        },
      );
      for (const sample of loaded) inFlight.set(sample.scenario, sample);
    }
  } finally {
    for (const scenario of scenarios) await scenario.close();
  }
}

try {
  await inProcessTogether();
  if (settings.monitorCycles > 0) {
    process.stderr.write('bench: store calls per cycle on each store …\n');
    const cycles = settings.monitorCycles;
    storeCalls.push(await measureStoreCalls({ store: 'memory' }, cycles));
    storeCalls.push(
      await measureStoreCalls({ store: 'sqlite', dataDir: sqlite.newDataDir() }, cycles),
    );
    if (postgres.available) {
      storeCalls.push(
        await measureStoreCalls({ store: 'postgres', url: await postgres.newDatabase() }, cycles),
      );
    }
    const redisChoice = { store: 'redis', url: redis.url, prefix: redis.newPrefix() } as const;
    storeCalls.push(await measureStoreCalls(redisChoice, cycles));
  }
  await run(await overHttp(NAMES.httpMemory, { store: 'memory' }), settings.httpCycles);
  await run(
    await overHttp(NAMES.httpSqlite, { store: 'sqlite', dataDir: sqlite.newDataDir() }),
    settings.httpCycles,
  );
  await run(
    await overHttp(NAMES.httpRedis, { store: 'redis', url: redis.url, prefix: redis.newPrefix() }),
    settings.httpCycles,
    (profiled) => {
      httpRedisProfile = profiled;
    },
  );
  if (settings.pausedRuns > 0) {
    const runs = settings.pausedRuns;
    process.stderr.write(`bench: bytes per paused run on each store, ${runs} runs each …\n`);
    footprints.push(await measurePausedFootprint({ store: 'memory' }, memoryMeter, runs));
    const dataDir = sqlite.newDataDir();
    footprints.push(
      await measurePausedFootprint({ store: 'sqlite', dataDir }, () => sqliteMeter(dataDir), runs),
    );
    if (postgres.available) {
      const url = await postgres.newDatabase();
      footprints.push(
        await measurePausedFootprint({ store: 'postgres', url }, () => postgresMeter(url), runs),
      );
    }
    // Memory growth is the bench's own only on a Redis it has to itself.
    if (redis.exclusive) {
      const choice = { store: 'redis', url: redis.url, prefix: redis.newPrefix() } as const;
      footprints.push(await measurePausedFootprint(choice, () => redisMeter(info), runs));
    }
  }

  if (settings.streamConcurrency > 0) {
    await stream('sse', { store: 'memory' });
    await stream('ws', { store: 'memory' });
    if (settings.streamRedis) {
      await stream('sse', { store: 'redis', url: redis.url, prefix: redis.newPrefix() });
      await stream('ws', { store: 'redis', url: redis.url, prefix: redis.newPrefix() });
    }
  }

  if (settings.scaleSessions > 0) {
    const plan = {
      pausedSessions: settings.scaleSessions,
      seedConcurrency: settings.scaleSeedConcurrency,
      resumes: settings.scaleResumes,
      inboxReads: settings.scaleInboxReads,
      idleMs: settings.scaleIdleMs,
    };
    scales.push(await measureScale(redisScaleStore(redis, info), plan));
    scales.push(await measureScale(sqliteScaleStore(sqlite), plan));
    if (postgres.available) scales.push(await measureScale(postgresScaleStore(postgres), plan));
  }
} finally {
  counters.close();
  info.close();
  await redis.close();
  sqlite.close();
  if (postgres.available) await postgres.close();
}

const order = [
  NAMES.memory,
  NAMES.sqlite,
  NAMES.postgres,
  NAMES.redis,
  NAMES.floor,
  NAMES.httpMemory,
  NAMES.httpSqlite,
  NAMES.httpRedis,
  NAMES.adk,
];
const ordered = order.flatMap((name) => samples.get(name) ?? []);
const ratioOf = (of: string, to: string) => {
  const [a, b] = [samples.get(of), samples.get(to)];
  return a && b ? [ratio(a, b)] : [];
};
const report: BenchReport = {
  node: process.version,
  cpus: cpus().length,
  redis: redis.description,
  sql,
  samples: ordered,
  ratios: [
    ...ratioOf(NAMES.redis, NAMES.adk),
    ...ratioOf(NAMES.sqlite, NAMES.adk),
    ...ratioOf(NAMES.postgres, NAMES.adk),
    ...ratioOf(NAMES.memory, NAMES.adk),
    ...ratioOf(NAMES.floor, NAMES.adk),
    ...ratioOf(NAMES.redis, NAMES.floor),
  ],
  floorNote: samples.has(NAMES.floor)
    ? `durable floor = the memory-store cycle with one awaited Redis PING behind each of its two answers:\n` +
      '  the least any store adds that makes the pause durable before answering pending_approval,\n' +
      '  and the completion before answering completed (invariant 4)'
    : undefined,
  inFlight: [
    NAMES.adk,
    NAMES.memory,
    NAMES.sqlite,
    NAMES.postgres,
    NAMES.redis,
    NAMES.floor,
  ].flatMap((name) => inFlight.get(name) ?? []),
  floors: simpleDesignFloors({
    adkInFlight: inFlight.get(NAMES.adk),
    memoryInFlight: inFlight.get(NAMES.memory),
    redisInFlight: inFlight.get(NAMES.redis),
    redisSequential: samples.get(NAMES.redis),
    durableFloorSequential: samples.get(NAMES.floor),
    redisProfile,
    redisFootprint: footprints.find((footprint) => footprint.store === 'redis'),
  }),
  stores: storeCycles(
    (Object.entries(IN_PROCESS) as [StoreKind, string][])
      .filter(([, name]) => samples.has(name))
      .map(([store, name]) => ({
        store,
        sequential: samples.get(name),
        inFlight: inFlight.get(name),
      })),
    { sequential: samples.get(NAMES.adk), inFlight: inFlight.get(NAMES.adk) },
  ),
  peerFloors: peerFloors({
    sqliteSequential: samples.get(NAMES.sqlite),
    postgresSequential: samples.get(NAMES.postgres),
  }),
  redisProfile,
  httpRedisProfile,
  postgresProfile,
  storeCalls,
  footprints,
  streams,
  scales,
  seconds: (performance.now() - began) / 1000,
};
process.stdout.write(`${formatReport(report)}\n\n${JSON.stringify(report)}\n`);
