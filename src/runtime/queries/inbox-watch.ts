import { principalAudiences } from '../../core/approvers.js';
import { HoldpointError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { INBOX_CHANNEL, inboxNewsSchema } from '../../store/inbox-news.js';
import type { RunRelay, Unsubscribe } from '../../store/run-relay.js';
import { delegatorsOf } from '../commands/resume-run.js';
import type { RuntimeContext } from '../runtime-context.js';
import { listPendingApprovals } from './pending-approvals.js';

/** How many pending approvals an inbox count reads at most (one page): more is "200+". */
export const INBOX_COUNT_CAP = 200;
/** How many of the counted approvals a summary names (the soonest to expire first). */
export const INBOX_SUMMARY_SIZE = 20;
/** Inbox watches one principal may hold open at once in one process. */
export const INBOX_WATCHES_PER_PRINCIPAL = 16;

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
  /** The people away who left their approvals to them now: their inbox news is theirs too. */
  delegators: string[];
}

/**
 * What waits for `by` now: the count of the pending approvals they may decide (one page
 * of the inbox query, so its cost is a page however many pauses wait), and the first few.
 */
export async function inboxSummary(ctx: RuntimeContext, by: Principal): Promise<InboxSummary> {
  const [page, delegators] = await Promise.all([
    listPendingApprovals(ctx, { limit: INBOX_COUNT_CAP }, by),
    delegatorsOf(ctx, by, ctx.clock.now()),
  ]);
  const decidable = page.approvals.filter((approval) => approval.canDecide);
  return {
    delegators,
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

  constructor(private readonly relay: RunRelay) {}

  /**
   * Calls `onNews` whenever a commit may have changed what `by` may decide (news whose
   * audiences include one of theirs, or one of `alsoHears`: a live set the holder keeps,
   * the people away who left their approvals to `by`), from now on, until the returned function is called;
   * `onEnd` when the process stops (`endAll`), for the holder to end what it serves.
   * Subscribed before it returns: a caller reads the inbox after this, and so misses
   * nothing in between. TOO_MANY_INBOX_STREAMS when `by` holds as many as they may.
   */
  async watch(
    by: Principal,
    onNews: () => void,
    onEnd: () => void,
    alsoHears: ReadonlySet<string> = new Set(),
  ): Promise<Unsubscribe> {
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
      const unsubscribe = await this.relay.subscribe(INBOX_CHANNEL, (message) => {
        const news = inboxNewsSchema.safeParse(message);
        // News about other audiences' pauses is none of this inbox's business.
        const heard = (audience: string) => mine.has(audience) || alsoHears.has(audience);
        if (news.success && news.data.audiences.some(heard)) onNews();
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
