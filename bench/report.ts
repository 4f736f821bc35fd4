import type { Floor, FloorUnit } from './floors.js';
import type { InFlightSample } from './in-flight.js';
import type { Sample } from './measure.js';
import type { PausedFootprint } from './paused-footprint.js';
import { PEER_BYTES, PEER_SOURCE } from './peer-figures.js';
import type { PostgresProfile } from './postgres-profile.js';
import type { RedisProfile } from './redis-profile.js';
import type { ScaleReport } from './scale.js';
import { formatScale } from './scale-report.js';
import { formatStoreCalls, type StoreCallProfile } from './store-calls.js';
import { formatStoreCycles, type StoreCycles } from './store-cycles.js';
import type { StreamSample } from './stream-measure.js';
import { ms, table, times } from './table.js';

/** Everything one bench run found. */
export interface BenchReport {
  node: string;
  cpus: number;
  /** Wall time of the whole run, the report's own formatting aside. */
  seconds: number;
  redis: string;
  /** Where the SQL stores ran, or why one did not. */
  sql: string[];
  samples: Sample[];
  ratios: Ratio[];
  /** The in-process scenarios with many cycles in flight at once. */
  inFlight: InFlightSample[];
  floors: Floor[];
  /** Each store's in-process cycles/s against bare ADK and the peers. */
  stores: StoreCycles[];
  /** Issue 24's floors against the peers' cycles/s. */
  peerFloors: Floor[];
  /** What the durable floor scenario is, printed under the ratios when it ran. */
  floorNote?: string;
  /** Redis work of one in-process cycle. */
  redisProfile?: RedisProfile;
  /** Redis work of one cycle over HTTP (`holdpoint serve`): the edge's rate counting too. */
  httpRedisProfile?: RedisProfile;
  /** PostgreSQL work of one in-process cycle. */
  postgresProfile?: PostgresProfile;
  /** What the runtime asks of each store per in-process cycle. */
  storeCalls: StoreCallProfile[];
  /** What one paused run keeps in each store. */
  footprints: PausedFootprint[];
  /** AI SDK streaming chats, many in flight at once. */
  streams: StreamSample[];
  /** The scale figures of each store measured (none when BENCH_SCALE_SESSIONS is 0). */
  scales: ScaleReport[];
}

/** How much slower scenario `of` is than the baseline, by latency. */
export interface Ratio {
  of: string;
  to: string;
  p50: number;
  p99: number;
  mean: number;
}

/** `of` relative to `to`, by p50, p99 and mean latency (the mean is 1 / throughput). */
export function ratio(of: Sample, to: Sample): Ratio {
  return {
    of: of.scenario,
    to: to.scenario,
    p50: of.p50Ms / to.p50Ms,
    p99: of.p99Ms / to.p99Ms,
    mean: of.meanMs / to.meanMs,
  };
}

/**
 * The human-readable report: sequential timings and their ratios, cycles in flight,
 * the floors, Redis commands per cycle, streaming and the scale figures.
 */
export function formatReport(report: BenchReport): string {
  const out: string[] = [
    `Holdpoint bench — one cycle = start("Generate 10 images") → pause → resume(approved) → complete`,
    `node ${report.node}, ${report.cpus} CPUs, rules model, ${report.redis};` +
      ` ran ${report.seconds.toFixed(0)} s`,
    ...report.sql,
    '',
    table(
      ['scenario', 'cycles', 'cycles/s', 'p50 ms', 'p99 ms', 'mean ms'],
      report.samples.map((s) => [
        s.scenario + (s.cutShort ? ' (time-bounded)' : ''),
        String(s.cycles),
        s.cyclesPerSecond.toFixed(1),
        ms(s.p50Ms),
        ms(s.p99Ms),
        ms(s.meanMs),
      ]),
    ),
    '',
    table(
      ['ratio (latency)', 'p50', 'p99', 'mean'],
      report.ratios.map((r) => [`${r.of} / ${r.to}`, times(r.p50), times(r.p99), times(r.mean)]),
    ),
  ];
  if (report.floorNote) out.push(report.floorNote);
  if (report.inFlight.length > 0) out.push('', formatInFlight(report.inFlight));
  if (report.stores.length > 0) {
    out.push('', formatStoreCycles(report.stores, report.inFlight[0]?.concurrency));
  }
  if (report.floors.length > 0) out.push('', formatFloors(report.floors));
  if (report.peerFloors.length > 0) {
    out.push('', formatFloors(report.peerFloors, 'floor against the peers'), `  ${PEER_SOURCE}`);
  }
  const profiles = [
    { over: 'in-process', profile: report.redisProfile },
    { over: 'HTTP', profile: report.httpRedisProfile },
  ];
  for (const { over, profile } of profiles) {
    if (profile) out.push('', formatProfile(over, profile));
  }
  if (report.postgresProfile) out.push('', formatPostgresProfile(report.postgresProfile));
  if (report.storeCalls.length > 0) out.push('', formatStoreCalls(report.storeCalls));
  if (report.footprints.length > 0) out.push('', formatFootprints(report.footprints));
  if (report.streams.length > 0) out.push('', formatStreams(report.streams));
  for (const scale of report.scales) out.push('', formatScale(scale));
  return out.join('\n');
}

/** Redis commands and client round trips per cycle, by command. */
function formatProfile(over: string, profile: RedisProfile): string {
  const byCount = Object.entries(profile.perCycle).sort((a, b) => b[1] - a[1]);
  return [
    `Redis per ${over} cycle: ${profile.roundTrips.toFixed(1)} client round trips,` +
      ` ${profile.total.toFixed(1)} commands in all` +
      ` (${profile.clientCommands.toFixed(1)} sent by clients, ` +
      `${profile.luaCommands.toFixed(1)} run inside Lua)`,
    `  ${byCount.map(([name, n]) => `${name} ${n.toFixed(1)}`).join(', ')}`,
  ].join('\n');
}

/** PostgreSQL statements and round trips per cycle, by kind. */
function formatPostgresProfile(profile: PostgresProfile): string {
  const byCount = Object.entries(profile.byKind).sort((a, b) => b[1] - a[1]);
  return [
    `PostgreSQL per in-process cycle: ${profile.roundTrips.toFixed(1)} round trips,` +
      ` ${profile.statements.toFixed(1)} statements (${profile.writes.toFixed(1)} writing,` +
      ` ${profile.notifies.toFixed(1)} NOTIFY), ${profile.transactions.toFixed(1)} BEGIN … COMMIT`,
    `  ${byCount.map(([kind, n]) => `${kind} ${n.toFixed(1)}`).join(', ')}`,
  ].join('\n');
}

/** A floor's figure as it reads. */
function figure(value: number, unit: FloorUnit): string {
  if (unit === 'ratio') return times(value);
  if (unit === 'bytes') return `${Math.round(value).toLocaleString('en-US')} B`;
  return value.toFixed(1);
}

/** The in-flight table: throughput and latency of each scenario under load. */
function formatInFlight(samples: InFlightSample[]): string {
  const concurrency = [...new Set(samples.map((s) => s.concurrency))].join('/');
  return [
    `${concurrency} cycles in flight — as many loops in this process, each running cycles back to back;` +
      ' scenarios timed in alternating slices',
    '',
    table(
      ['scenario', 'cycles', 'cycles/s', 'p50 ms', 'p99 ms'],
      samples.map((s) => [
        s.scenario,
        String(s.cycles),
        s.cyclesPerSecond.toFixed(1),
        ms(s.p50Ms),
        ms(s.p99Ms),
      ]),
    ),
  ].join('\n');
}

/** Bytes per paused run on each store, beside the peers' figures. */
function formatFootprints(footprints: PausedFootprint[]): string {
  const bytes = (value: number) => `${Math.round(value).toLocaleString('en-US')} B`;
  return [
    'Bytes per paused run (one run first, then growth over the runs paused, per run)',
    '',
    table(
      ['store', 'per paused run', 'measured as'],
      [
        ...footprints.map((f) => [
          f.store,
          bytes(f.bytesPerRun),
          `${f.measure}, over ${f.runs} runs` +
            (f.keysPerRun === undefined ? '' : `; ${f.keysPerRun.toFixed(2)} keys per run`),
        ]),
        ...PEER_BYTES.map((peer) => [peer.name, peer.figure, peer.source]),
      ],
      [0, 2],
    ),
  ].join('\n');
}

/** Floors: each measured figure against its bound. */
function formatFloors(floors: Floor[], title = 'floor for a simple design'): string {
  return table(
    [title, 'measured', 'floor', 'result'],
    floors.map((f) => [
      f.label,
      figure(f.measured, f.unit),
      `${f.bound === 'at least' ? '≥' : '≤'} ${figure(f.value, f.unit)}`,
      f.met ? 'met' : 'missed',
    ]),
  );
}

/** The streaming table: first chunk, approval request and decision → tool output, per scenario. */
function formatStreams(streams: StreamSample[]): string {
  const concurrency = [...new Set(streams.map((s) => s.concurrency))].join('/');
  const failed = streams.filter((s) => s.firstFailure);
  return [
    `AI SDK streaming — ${concurrency} chats in flight at once; one chat = "Generate 10 images"` +
      ' → tool-approval-request → approve → tool-output-available → finish',
    '  SSE: two turns on POST /api/chat; decision = sending turn 2.' +
      ' WS: one continuous stream on /api/chat/ws; decision = a decision frame on the same socket.',
    '',
    table(
      [
        'scenario',
        'chats',
        'chats/s',
        '1st chunk p50',
        'p99',
        'approval req p50',
        'p99',
        'decision→output p50',
        'p99',
        'failed',
      ],
      streams.map((s) => [
        s.scenario + (s.cutShort ? ' (time-bounded)' : ''),
        `${s.chats} (${s.rounds}×${s.concurrency})`,
        s.chatsPerSecond.toFixed(1),
        ms(s.firstChunk.p50Ms),
        ms(s.firstChunk.p99Ms),
        ms(s.approvalRequest.p50Ms),
        ms(s.approvalRequest.p99Ms),
        ms(s.decisionToOutput.p50Ms),
        ms(s.decisionToOutput.p99Ms),
        String(s.failures),
      ]),
    ),
    ...failed.map((s) => `  ${s.scenario}: first failure: ${s.firstFailure}`),
  ].join('\n');
}
