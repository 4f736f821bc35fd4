import pg from 'pg';
import type { Cycle } from './measure.js';

/** PostgreSQL work per cycle of one scenario, as node-postgres sent it. */
export interface PostgresProfile {
  /** Every query a connection sent (each one round trip: a connection sends one at a time). */
  roundTrips: number;
  /** Of them, SQL statements (not BEGIN, COMMIT, ROLLBACK). */
  statements: number;
  /** Of them, the statements that write (INSERT, UPDATE, DELETE, or a session's commit statement). */
  writes: number;
  /** Of them, `pg_notify` sends (relay messages). */
  notifies: number;
  /** Transactions opened with BEGIN. */
  transactions: number;
  /** Round trips per statement kind (its first words), per cycle. */
  byKind: Record<string, number>;
}

/** The first words of `sql` that say what it does (`SELECT … FROM hp_events`, `INSERT INTO hp_audit`…). */
function kindOf(sql: string): string {
  const text = sql.replace(/\s+/g, ' ').trim();
  const verb = text.split(' ')[0]?.toUpperCase() ?? '';
  if (/pg_notify/i.test(text)) return 'NOTIFY';
  // A session's commit: one statement, the session row's compare-and-set first.
  if (verb === 'WITH' && /^WITH s AS \((UPDATE|INSERT INTO) hp_sessions/i.test(text)) {
    return 'commit statement';
  }
  if (/UNION ALL SELECT 1, seq, event/i.test(text)) return 'loadSession query';
  if (/AS listened FROM hp_sessions/i.test(text)) return 'snapshot query';
  if (verb === 'WITH' || verb === 'SELECT') {
    const from = /\bFROM (hp_\w+)/i.exec(text)?.[1];
    const call = /\b(hp_\w+)\s*\(/i.exec(text)?.[1];
    return `${verb} ${call ?? from ?? ''}`.trim();
  }
  const table = /\b(?:INTO|UPDATE|FROM) (hp_\w+)/i.exec(text)?.[1];
  return `${verb} ${table ?? ''}`.trim();
}

/**
 * Runs `cycles` cycles (untimed) while counting every query any node-postgres client in
 * this process sends: the store's pool, its relay, anything else. Only these cycles
 * should run meanwhile.
 */
export async function profilePostgres(cycle: Cycle, cycles: number): Promise<PostgresProfile> {
  const counts: Record<string, number> = {};
  const original = pg.Client.prototype.query;
  // node-postgres sends a client's queries one after another: each is one round trip.
  pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined;
    const sql = typeof first === 'string' ? first : (first?.text ?? '');
    const kind = kindOf(sql);
    counts[kind] = (counts[kind] ?? 0) + 1;
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    for (let i = 0; i < cycles; i++) await cycle();
  } finally {
    pg.Client.prototype.query = original;
  }
  const per = (n: number) => (cycles > 0 ? n / cycles : 0);
  const total = (match: (kind: string) => boolean) =>
    per(
      Object.entries(counts)
        .filter(([kind]) => match(kind))
        .reduce((sum, [, n]) => sum + n, 0),
    );
  const control = (kind: string) => ['BEGIN', 'COMMIT', 'ROLLBACK'].includes(kind);
  return {
    roundTrips: total(() => true),
    statements: total((kind) => !control(kind)),
    writes: total((kind) => /^(INSERT|UPDATE|DELETE|commit)/.test(kind)),
    notifies: total((kind) => kind === 'NOTIFY'),
    transactions: total((kind) => kind === 'BEGIN'),
    byKind: Object.fromEntries(Object.entries(counts).map(([kind, n]) => [kind, per(n)])),
  };
}
