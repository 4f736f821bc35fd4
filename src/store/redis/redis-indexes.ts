import type { Pause } from '../../core/types.js';
import { pauseAudiences } from '../../session/decision/approvers.js';
import { nextSlaAt } from '../../session/sla.js';
import type { PageCursor, RunCounts, SessionSnapshot, SessionWrites } from '../store.js';
import { waitingChanges } from '../waiting-counts.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

/** How long an audience's index outlives the latest expiry it holds. */
const AUDIENCE_INDEX_GRACE_MS = 60_000;

/**
 * One index write a commit makes true, applied by the commit script (lua/commit-session.lua)
 * with the commit or not at all: a sorted-set entry added (`keepUntil`: the index lives at
 * least that long; with `kept`, through its marker, the key `kept` names) or dropped, the
 * entries scored up to `upTo` dropped, a pointer set until `keepUntil` (`session`: as long
 * as the session, written `always` or only when the session's expiry moves), a hash
 * field's count moved `by` (never below zero), or a hash written whole unless it exists
 * (an outbox delivery: a commit computed again writes the same ids).
 */
export type IndexOperation =
  | { op: 'zadd'; key: string; score: number; member: string; keepUntil?: number }
  | { op: 'zadd'; key: string; score: number; member: string; keepUntil: number; kept: string }
  | { op: 'zrem'; key: string; member: string }
  | { op: 'trim'; key: string; upTo: number }
  | { op: 'set'; key: string; value: string; keepUntil: number }
  | { op: 'set'; key: string; value: string; keepUntil: 'session'; when: 'always' | 'moved' }
  | { op: 'hincrby'; key: string; field: string; by: number }
  | { op: 'hnew'; key: string; fields: string[]; keepUntil: number };

/**
 * The operations as the commit script reads them: the keys they touch (declared after
 * the script's first `firstKey - 1` keys) and six values per operation, naming its keys
 * by position in KEYS.
 */
export function encodeIndexOperations(
  operations: IndexOperation[],
  firstKey: number,
): { keys: string[]; args: (string | number)[] } {
  const keys: string[] = [];
  const args: (string | number)[] = [];
  const position = (key: string) => {
    const at = keys.indexOf(key);
    return firstKey + (at < 0 ? keys.push(key) - 1 : at);
  };
  for (const operation of operations) {
    const key = position(operation.key);
    if (operation.op === 'zadd' && 'kept' in operation) {
      const { score, member, keepUntil, kept } = operation;
      args.push('zkeep', key, score, member, keepUntil, position(kept));
    } else if (operation.op === 'zadd') {
      const { score, member, keepUntil } = operation;
      args.push('zadd', key, score, member, keepUntil ?? '', '');
    } else if (operation.op === 'zrem') {
      args.push('zrem', key, operation.member, '', '', '');
    } else if (operation.op === 'trim') {
      args.push('trim', key, operation.upTo, '', '', '');
    } else if (operation.op === 'hincrby') {
      args.push('hincrby', key, operation.field, operation.by, '', '');
    } else if (operation.op === 'set') {
      const when = operation.keepUntil === 'session' ? operation.when : '';
      args.push('set', key, operation.value, operation.keepUntil, when, '');
    } else {
      args.push('hnew', key, JSON.stringify(operation.fields), operation.keepUntil, '', '');
    }
  }
  return { keys, args };
}

/**
 * The entry of a paused session in `audience`'s index, scored by the pause's expiry: the
 * index is kept until a grace after it, by its marker.
 */
function audienceEntry(
  keys: RedisKeys,
  audience: string,
  expiresAt: number,
  sessionId: string,
): IndexOperation {
  return {
    op: 'zadd',
    key: keys.pausedFor(audience),
    score: expiresAt,
    member: sessionId,
    keepUntil: expiresAt + AUDIENCE_INDEX_GRACE_MS,
    kept: keys.pausedForKept(audience),
  };
}

/** Whether some approval of `pause` has an SLA (so the pause is in the SLA index while it waits). */
function hasSla(pause: Pause | undefined): boolean {
  return pause?.approvals.some((approval) => approval.sla !== undefined) ?? false;
}

/** An index entry: a session id and its score (a pause's expiry, a lease's end). */
export interface IndexEntry {
  sessionId: string;
  expiresAt: number;
}

function entries(flat: string[]): IndexEntry[] {
  const found: IndexEntry[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    found.push({ sessionId: flat[i] as string, expiresAt: Number(flat[i + 1]) });
  }
  return found;
}

/**
 * The indexes that find sessions without scanning: paused sessions (all of them and
 * each audience's, sorted sets by the pause's expiry), each approval id's session,
 * running sessions (by their lease's end) and each run's session. Every entry is
 * written by the commit that makes it true (`commitOperations`, in the same script), so
 * an entry is there exactly while its session is paused or running. Entries outlive
 * their session only when its keys age out (a pause's entry is scored by its expiry and
 * lists read from now on; the sweep and recovery drop what is left), or when they were
 * written by a release that indexed beside the commit (`dropStale`).
 */
export class RedisIndexes {
  private readonly pageScript: RedisScript;
  private readonly ownedPageScript: RedisScript;
  private readonly sweepTurnScript: RedisScript;
  private readonly dropScript: RedisScript;

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
  ) {
    this.pageScript = conn.script('index-page');
    this.ownedPageScript = conn.script('owned-page');
    this.sweepTurnScript = conn.script('take-sweep-turn');
    this.dropScript = conn.script('drop-stale-entry');
  }

  /**
   * The index writes of a commit of `writes` over `before` (undefined: a new session):
   * a pause entered is indexed for everyone, for each audience that may decide it (each
   * audience's index kept by its marker until the pause's expiry and a grace after) and
   * by its approval ids (kept as long as the session); a pause left is dropped; a running
   * session is (re)indexed by its lease's end when that changes (taking it, each
   * renewal), and dropped when its segment ends; the latest run's pointer lives as long
   * as the session. The counts of approvals waiting per app and tool move with the
   * approvals the commit makes wait or stop waiting (`waitingChanges`). The owner's list
   * is the commit script's own (RedisSessionWriter).
   */
  commitOperations(
    sessionId: string,
    before: SessionSnapshot | undefined,
    writes: SessionWrites,
  ): IndexOperation[] {
    const k = this.keys;
    const { meta } = writes;
    const was = before?.meta.status;
    const operations: IndexOperation[] = [];
    const pause = writes.pauses?.find((p) => p.pauseId === meta.pauseId);
    if (meta.status === 'paused' && pause?.status === 'pending' && was !== 'paused') {
      const score = pause.expiresAt;
      operations.push({ op: 'zadd', key: k.paused(), score, member: sessionId });
      for (const audience of pauseAudiences(pause)) {
        operations.push(audienceEntry(k, audience, score, sessionId));
      }
      for (const { approvalId } of pause.approvals) {
        const key = k.approval(approvalId);
        operations.push({ op: 'set', key, value: sessionId, keepUntil: 'session', when: 'always' });
      }
    }
    if (meta.status === 'paused' && pause?.status === 'pending' && was === 'paused') {
      // Deciders added while it waits (an escalation, a reassignment) find it in their
      // inbox from this commit on.
      const earlier = new Set(before?.pause ? pauseAudiences(before.pause) : []);
      for (const audience of pauseAudiences(pause)) {
        if (earlier.has(audience)) continue;
        operations.push(audienceEntry(k, audience, pause.expiresAt, sessionId));
      }
    }
    if (meta.status === 'paused' && pause && (hasSla(pause) || hasSla(before?.pause))) {
      // Every commit that writes the pending pause scores its next SLA step again (a pause
      // without one never enters the index, and its commits leave it alone).
      const due = nextSlaAt(pause);
      if (due === undefined) operations.push({ op: 'zrem', key: k.slaDue(), member: sessionId });
      else operations.push({ op: 'zadd', key: k.slaDue(), score: due, member: sessionId });
    }
    if (was === 'paused' && meta.status !== 'paused' && before?.pause) {
      operations.push({ op: 'zrem', key: k.paused(), member: sessionId });
      if (hasSla(before.pause)) operations.push({ op: 'zrem', key: k.slaDue(), member: sessionId });
      for (const audience of pauseAudiences(before.pause)) {
        operations.push({ op: 'zrem', key: k.pausedFor(audience), member: sessionId });
      }
    }
    const lease = meta.status === 'running' ? meta.lease : undefined;
    const held = was === 'running' ? before?.meta.lease : undefined;
    // A commit that meets its run interrupted (its lease lapsed) indexes it again: one
    // stopped by a release that kept no index is found from then on.
    const lapsed = lease !== undefined && lease.until <= meta.updatedAt;
    if (lease && (lapsed || lease.until !== held?.until || lease.owner !== held.owner)) {
      operations.push({ op: 'zadd', key: k.running(), score: lease.until, member: sessionId });
    } else if (!lease && was === 'running') {
      operations.push({ op: 'zrem', key: k.running(), member: sessionId });
    }
    if (meta.invocationId) {
      // Written when the run starts; then moved with the session's expiry.
      const started = before?.meta.invocationId !== meta.invocationId || lapsed;
      operations.push({
        op: 'set',
        key: k.run(meta.invocationId),
        value: sessionId,
        keepUntil: 'session',
        when: started ? 'always' : 'moved',
      });
    }
    for (const [field, by] of waitingChanges(before, writes)) {
      operations.push({ op: 'hincrby', key: k.waiting(), field, by });
    }
    return operations;
  }

  /** A page of running sessions whose entry is scored by `now`, or after `after`. */
  async lapsed(now: number, after: PageCursor | undefined, limit: number): Promise<IndexEntry[]> {
    const flat = (await this.pageScript(
      [this.keys.running()],
      ['-inf', after?.member ?? '', after?.score ?? '', limit, now],
    )) as string[];
    return entries(flat);
  }

  /** The session a run belongs to, if it was indexed. */
  async runSession(invocationId: string): Promise<string | undefined> {
    return (await this.conn.client.get(this.keys.run(invocationId))) ?? undefined;
  }

  /**
   * Drops `entry` from the running index, the SLA index, or the paused index and `audiences`',
   * while it is still scored as read: for an entry whose session aged out or is no
   * longer what the index says.
   */
  dropStale(
    entry: IndexEntry,
    index: 'running' | 'sla' | { audiences: string[] },
  ): Promise<unknown> {
    const k = this.keys;
    const keys =
      index === 'running'
        ? [k.running()]
        : index === 'sla'
          ? [k.slaDue()]
          : [k.paused(), ...index.audiences.map((a) => k.pausedFor(a))];
    return this.dropScript(keys, [entry.sessionId, entry.expiresAt]);
  }

  /** Entries of the paused index (`sla`: the SLA index) due by `now`, earliest first. */
  async due(now: number, limit: number, index: 'paused' | 'sla' = 'paused'): Promise<IndexEntry[]> {
    const flat = await this.conn.client.zrange(
      index === 'paused' ? this.keys.paused() : this.keys.slaDue(),
      '-inf',
      String(now),
      'BYSCORE',
      'LIMIT',
      0,
      limit,
      'WITHSCORES',
    );
    return entries(flat);
  }

  /** A page of the paused index (one audience's, or all), from `min` or after `after`. */
  async page(
    audience: string | undefined,
    min: number,
    after: PageCursor | undefined,
    limit: number,
  ): Promise<IndexEntry[]> {
    const key = audience === undefined ? this.keys.paused() : this.keys.pausedFor(audience);
    const flat = (await this.pageScript(
      [key],
      [min, after?.member ?? '', after?.score ?? '', limit, ''],
    )) as string[];
    return entries(flat);
  }

  /** The session an approval id belongs to, if it was indexed. */
  async approvalSession(approvalId: string): Promise<string | undefined> {
    return (await this.conn.client.get(this.keys.approval(approvalId))) ?? undefined;
  }

  /**
   * A page of `userId`'s sessions, most recently updated first, still listed at `now`,
   * after `after` when given; each entry's `expiresAt` is when it leaves the list.
   */
  async owned(
    userId: string,
    now: number,
    after: PageCursor | undefined,
    limit: number,
  ): Promise<IndexEntry[]> {
    const flat = (await this.ownedPageScript(
      [this.keys.sessionsOf(userId)],
      [now, after?.member ?? '', after?.score ?? '', limit],
    )) as string[];
    return entries(flat);
  }

  /** The waiting counts, field (`waitingKey`) → count, as the commits left them. */
  async waiting(): Promise<[string, number][]> {
    const hash = await this.conn.client.hgetall(this.keys.waiting());
    return Object.entries(hash).map(([field, count]) => [field, Number(count)]);
  }

  /**
   * How many entries the paused, running and deliveries indexes hold, in one round trip
   * (entries of sessions that aged out count until a reader drops them).
   */
  async sizes(): Promise<{ paused: number; running: number; deliveries: number }> {
    const k = this.keys;
    const replies = await this.conn.client
      .multi()
      .zcard(k.paused())
      .zcard(k.running())
      .zcard(k.deliveries())
      .exec();
    const [paused, running, deliveries] = (replies ?? []).map(([, count]) => Number(count));
    return { paused: paused ?? 0, running: running ?? 0, deliveries: deliveries ?? 0 };
  }

  /**
   * The running index's entries with a lease in force at `now` and lapsed by it, in one
   * round trip (an entry of a session that aged out counts until a reader drops it).
   */
  async runCounts(now: number): Promise<RunCounts> {
    const replies = await this.conn.client
      .multi()
      .zcount(this.keys.running(), `(${now}`, '+inf')
      .zcount(this.keys.running(), '-inf', now)
      .exec();
    const [running, interrupted] = (replies ?? []).map(([, count]) => Number(count));
    return { running: running ?? 0, interrupted: interrupted ?? 0 };
  }

  /** Takes or keeps the sweep for `ms`; false while another instance holds it. */
  async takeSweepTurn(owner: string, ms: number): Promise<boolean> {
    return (await this.sweepTurnScript([this.keys.sweeper()], [owner, ms])) === 1;
  }
}
