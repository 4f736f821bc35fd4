import { HoldpointError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { principalAudiences } from '../../session/decision/approvers.js';
import { INBOX_CHANNEL, inboxNewsSchema } from '../../store/inbox-news.js';
import type { RunRelay, Unsubscribe } from '../../store/run-relay.js';
import type { NoInput } from '../requests.js';
import type { RuntimeContext } from '../runtime-context.js';
import { listApprovals } from './pending-approvals.js';

/** How many pending approvals an inbox count reads at most (one page): more is "200+". */
export const INBOX_COUNT_CAP = 200;
/** How many of the counted approvals a summary names (the soonest to expire first). */
export const INBOX_SUMMARY_SIZE = 20;
/** Inbox watches one principal may hold open at once in one process. */
export const INBOX_WATCHES_PER_PRINCIPAL = 16;
/**
 * How long a watch trusts what it read of the people who left their approvals to its
 * principal (out of office): news for someone else reads it again once it is older, so a
 * delegation reaches open streams this soon, at one read per stream per period at most.
 */
export const INBOX_DELEGATORS_TTL_MS = 15_000;

/** Who left their approvals to `by` now (out of office): their principal ids. */
export type DelegatorsOf = (by: Principal) => Promise<string[]>;

/** One approval a summary names: enough to tell it is new and to say what it is. */
export interface InboxEntry {
  approvalId: string;
  toolName: string;
  sessionId: string;
  app: string;
}

/** What waits for a principal now. */
export interface InboxSummary {
  /** How many pending approvals they may decide now, at most INBOX_COUNT_CAP. */
  pending: number;
  /** Whether there are more than `pending`. */
  more: boolean;
  /** The first INBOX_SUMMARY_SIZE of them, soonest to expire first. */
  approvals: InboxEntry[];
}

/**
 * What waits for `by` now: the count of the pending approvals they may decide (one page
 * of the inbox query, so its cost is a page however many pauses wait), and the first few.
 */
export async function getInboxSummary(
  ctx: RuntimeContext,
  _input: NoInput,
  by: Principal,
): Promise<InboxSummary> {
  const page = await listApprovals(ctx, { limit: INBOX_COUNT_CAP }, by);
  const decidable = page.approvals.filter((approval) => approval.canDecide);
  return {
    pending: decidable.length,
    more: page.nextCursor !== undefined,
    approvals: decidable.slice(0, INBOX_SUMMARY_SIZE).map((approval) => ({
      approvalId: approval.approvalId,
      toolName: approval.toolName,
      sessionId: approval.sessionId,
      app: approval.app,
    })),
  };
}

/**
 * The inbox watches of one runtime: each one a subscription to the relay's inbox channel,
 * bounded per principal in this process.
 */
export class InboxWatches {
  /** Principal id → watches open; a principal with none has no entry. */
  private readonly open = new Map<string, number>();
  /** How each open watch's holder is told to end it (the process stops). */
  private readonly enders = new Set<() => void>();

  constructor(
    private readonly relay: RunRelay,
    private readonly delegatorsOf: DelegatorsOf = async () => [],
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Calls `onNews` whenever a commit may have changed what `by` may decide (news whose
   * audiences include one of theirs), from now on, until the returned function is called;
   * `onEnd` when the process stops (`endAll`), for the holder to end what it serves.
   * Subscribed before it returns: a caller reads the inbox after this, and so misses
   * nothing in between. TOO_MANY_INBOX_STREAMS when `by` holds as many as they may.
   */
  async watch(by: Principal, onNews: () => void, onEnd: () => void): Promise<Unsubscribe> {
    const held = this.open.get(by.id) ?? 0;
    if (held >= INBOX_WATCHES_PER_PRINCIPAL) {
      throw new HoldpointError(
        'TOO_MANY_INBOX_STREAMS',
        `${by.id} has ${held} inbox streams open, the most one may; close one first.`,
        { max_streams: INBOX_WATCHES_PER_PRINCIPAL },
      );
    }
    this.open.set(by.id, held + 1);
    const mine = new Set(principalAudiences(by));
    // The `user:` audiences of those who left their approvals to `by`, and when read.
    let delegated = new Set<string>();
    let readAt = Number.NEGATIVE_INFINITY;
    const concerns = (audiences: string[]) =>
      audiences.some((audience) => mine.has(audience) || delegated.has(audience));
    // A store that cannot say keeps what was read last: the stream still hears `by`'s own.
    const readDelegators = async () => {
      readAt = this.now();
      const ids = await this.delegatorsOf(by).catch(() => undefined);
      if (ids) delegated = new Set(ids.map((id) => `user:${id}`));
    };
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.enders.delete(onEnd);
      const left = (this.open.get(by.id) ?? 1) - 1;
      if (left > 0) this.open.set(by.id, left);
      else this.open.delete(by.id);
    };
    try {
      await readDelegators();
      const unsubscribe = await this.relay.subscribe(INBOX_CHANNEL, (message) => {
        const news = inboxNewsSchema.safeParse(message);
        if (!news.success) return;
        const { audiences, delegation } = news.data;
        if (delegation && audiences.some((audience) => mine.has(audience))) {
          // Someone left their approvals to `by`, or took them back: count with them.
          void readDelegators().then(onNews);
        } else if (concerns(audiences)) {
          onNews();
        } else if (this.now() - readAt >= INBOX_DELEGATORS_TTL_MS) {
          // Perhaps someone left their approvals to `by` since: read that again, then look.
          void readDelegators().then(() => concerns(audiences) && onNews());
        }
        // Otherwise news about other audiences' pauses is none of this inbox's business.
      });
      this.enders.add(onEnd);
      return async () => {
        release();
        await unsubscribe();
      };
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Tells every open watch's holder to end it: the process stops. */
  endAll(): void {
    for (const end of [...this.enders]) end();
  }
}
