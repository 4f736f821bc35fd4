import type { Sample } from './measure.js';
import type { RedisProfile } from './redis-profile.js';
import type { StreamSample } from './stream-measure.js';

/** Everything one bench run found. */
export interface BenchReport {
  node: string;
  cpus: number;
  redis: string;
  samples: Sample[];
  ratios: Ratio[];
  /** What the durable floor scenario is, printed under the ratios when it ran. */
  floorNote?: string;
  redisProfile?: RedisProfile;
  /** AI SDK streaming chats, many in flight at once. */
  streams: StreamSample[];
}

/** How much slower scenario `of` is than the baseline, by latency. */
export interface Ratio {
  of: string;
  to: string;
  p50: number;
  p99: number;
  mean: number;
  /** Whether this ratio is the one the ≤ 2× target is about. */
  targeted: boolean;
}

const TARGET = 2;

/** `of` relative to `to`, by p50, p99 and mean latency (the mean is 1 / throughput). */
export function ratio(of: Sample, to: Sample, targeted = false): Ratio {
  return {
    of: of.scenario,
    to: to.scenario,
    p50: of.p50Ms / to.p50Ms,
    p99: of.p99Ms / to.p99Ms,
    mean: of.meanMs / to.meanMs,
    targeted,
  };
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  // The first column is text, the rest are numbers: align those on the right.
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)));
  const rule = widths.map((w) => '-'.repeat(w));
  return [line(header), rule, ...rows.map(line)].map((cells) => cells.join('  ')).join('\n');
}

const ms = (value: number) => value.toFixed(3);
const times = (value: number) => `${value.toFixed(2)}×`;

/** The human-readable report: timings, ratios to bare ADK, Redis commands per cycle. */
export function formatReport(report: BenchReport): string {
  const out: string[] = [
    `Holdpoint bench — one cycle = start("Generate 10 images") → pause → resume(approved) → complete`,
    `node ${report.node}, ${report.cpus} CPUs, rules model, ${report.redis}`,
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
      ['ratio (latency)', 'p50', 'p99', 'mean', `target ≤ ${TARGET}×`],
      report.ratios.map((r) => [
        `${r.of} / ${r.to}`,
        times(r.p50),
        times(r.p99),
        times(r.mean),
        r.targeted ? (Math.max(r.p50, r.mean) <= TARGET ? 'met' : 'missed') : '-',
      ]),
    ),
  ];
  if (report.floorNote) out.push(report.floorNote);
  const profile = report.redisProfile;
  if (profile) {
    const byCount = Object.entries(profile.perCycle).sort((a, b) => b[1] - a[1]);
    out.push(
      '',
      `Redis commands per in-process cycle: ${profile.total.toFixed(1)} in all` +
        ` (${profile.clientCommands.toFixed(1)} sent by clients, ` +
        `${profile.luaCommands.toFixed(1)} run inside Lua)`,
      `  ${byCount.map(([name, n]) => `${name} ${n.toFixed(1)}`).join(', ')}`,
    );
  }
  if (report.streams.length > 0) out.push('', formatStreams(report.streams));
  return out.join('\n');
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
