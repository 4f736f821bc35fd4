import type { ScaleLevel, ScaleReport } from './scale.js';
import { ms, table, times } from './table.js';

/** Point 6 asks a full store to answer "as fast" (a resume within 20%) as an almost empty one. */
const WITHIN = 1.2;

const count = (n: number) => n.toLocaleString('en-US');
const rate = (n: number) => n.toFixed(2);

/** How one figure reads in the table, and whether point 6 bounds its ratio. */
interface Figure {
  label: string;
  pick: (level: ScaleLevel) => number;
  format: (value: number) => string;
  bounded: boolean;
}

/** The figures of point 6, at both levels. */
function figures(scale: ScaleReport): Figure[] {
  const { resume, inbox } = scale.almostEmpty;
  return [
    {
      label: `resume p50 ms (${resume.count} resumes)`,
      pick: (l) => l.resume.p50Ms,
      format: ms,
      bounded: true,
    },
    { label: 'resume p99 ms', pick: (l) => l.resume.p99Ms, format: ms, bounded: false },
    {
      label: `inbox p50 ms (${inbox.count} reads)`,
      pick: (l) => l.inbox.p50Ms,
      format: ms,
      bounded: true,
    },
    { label: 'inbox p99 ms', pick: (l) => l.inbox.p99Ms, format: ms, bounded: false },
    {
      label: `idle ${scale.idleUnit}`,
      pick: (l) => l.idleCommandsPerSecond,
      format: rate,
      bounded: true,
    },
  ];
}

/** One figure at both levels, their ratio and, when point 6 bounds it, whether it holds. */
function row(scale: ScaleReport, { label, pick, format, bounded }: Figure): string[] {
  const [small, full] = [pick(scale.almostEmpty), pick(scale.full)];
  const ratio = full / small;
  const check = bounded ? `≤ ${times(WITHIN)}: ${ratio <= WITHIN ? 'met' : 'missed'}` : '-';
  return [label, format(small), format(full), times(ratio), check];
}

/** Whether the store's lists and lookups read growing tables through indexes only. */
function planLines(scale: ScaleReport): string[] {
  if (!scale.plans) return [];
  return [
    '',
    `  plans at ${count(scale.full.paused)} paused (EXPLAIN of the statements each call sent):`,
    ...scale.plans.map(({ call, statements, indexes, fullScans }) => {
      const verdict =
        fullScans.length === 0 ? 'indexes only' : `FULL SCAN of ${fullScans.join(', ')}`;
      return `    ${call} (${statements} statements): ${verdict}; ${indexes.join(', ') || 'no index'}`;
    }),
  ];
}

/** The scale table of one store: what a paused session costs in it, and the runtime at both levels. */
export function formatScale(scale: ScaleReport): string {
  const { seed, almostEmpty, full } = scale;
  const keys =
    seed.keysPerSession === undefined
      ? ''
      : `; keys per paused session: ${seed.keysPerSession.toFixed(2)}`;
  return [
    `Scale — ${scale.store} store; a paused session = one "Generate 10 images" run waiting for its approval`,
    `  seeded ${count(seed.sessions)} paused sessions (${seed.sessionsPerOwner} per owner) ` +
      `in ${seed.seconds.toFixed(1)} s, ${seed.method}`,
    `  bytes per paused session: ${count(Math.round(seed.bytesPerSession))}` +
      ` (${seed.bytesMeasure})${keys}`,
    '  resume: runtime.resume(approved) of a session paused just before, one at a time',
    `  inbox: runtime.listPendingApprovals of a user with ${scale.inboxApprovals} pending approvals`,
    '  (resumes and inbox reads alternate between the two stores, 10 at a time)',
    `  idle: ${scale.idleUnit} over ${scale.idleSeconds} s with only the expiry sweeper running` +
      ` (every ${almostEmpty.sweepIntervalSeconds} s, the server's default)`,
    '',
    table(
      [
        'figure',
        `${count(almostEmpty.paused)} paused`,
        `${count(full.paused)} paused`,
        'ratio',
        'point 6',
      ],
      figures(scale).map((figure) => row(scale, figure)),
    ),
    ...planLines(scale),
  ].join('\n');
}
