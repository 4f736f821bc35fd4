import { createHash } from 'node:crypto';
import { DEFAULTS } from '../core/defaults.js';
import type {
  DeliveryRecord,
  DeliveryStatus,
  Page,
  PageCursor,
  SessionSnapshot,
  SessionWrites,
} from '../session/session-shapes.js';

// A delivery's record is written with a session's commit, so it is a session shape; the
// outbox's callers find it here.
export type { DeliveryRecord, DeliveryStatus } from '../session/session-shapes.js';

/**
 * A delivery's stable id: the same event to the same recipient through the same channel
 * has the same id however often it is planned, sent or re-sent.
 */
export function deliveryIdOf(eventId: string, channel: string, recipient: string): string {
  const digest = createHash('sha256').update(`${eventId}|${channel}|${recipient}`).digest('hex');
  return `dlv_${digest.slice(0, 32)}`;
}

/** How long deliveries are kept by default: the `deliveryRetentionSeconds` setting's default. */
export const DEFAULT_DELIVERY_RETENTION_SECONDS = DEFAULTS.deliveryRetentionSeconds;

/** How an attempt ended, as its claimer records it. */
export type DeliveryResult =
  | { status: 'sent'; ref?: string }
  | { status: 'failed'; error: string; retryAt: number }
  | { status: 'gave_up'; error: string };

/**
 * What a commit tells people: the deliveries announcing the approval events of
 * `writes` (audit lines already chained, so each has its hash), computed inside the
 * commit's compare-and-set and stored with it, or not at all.
 */
export type DeliveryPlanner = (
  before: SessionSnapshot | undefined,
  writes: SessionWrites,
) => DeliveryRecord[];

/** Which deliveries a page lists: all or those with `status`, at most `limit`, after a cursor. */
export interface DeliveryQuery {
  status?: DeliveryStatus;
  limit: number;
  after?: PageCursor;
}

/**
 * The durable outbox: deliveries written by the commits whose events they announce,
 * and an index of the due ones, so a delivery is sent at least once whatever process
 * dies, and waiting deliveries cost nothing until due.
 */
export interface Outbox {
  /** What plans the deliveries of each commit (see `planWith`); without it commits write none. */
  readonly planner?: DeliveryPlanner;
  /**
   * How long a delivery is kept after it was written (then it is gone, whatever its
   * status). Default DEFAULT_DELIVERY_RETENTION_SECONDS.
   */
  readonly retentionSeconds: number;
  /**
   * From now on, every commit plans its deliveries with `planner`, each kept
   * `retentionSeconds` (default DEFAULT_DELIVERY_RETENTION_SECONDS) after it is written.
   * Returns what stops it (planning by a later `planWith` is left as it is).
   */
  planWith(planner: DeliveryPlanner, retentionSeconds?: number): () => void;
  /** Deliveries due by `now` (pending or failed), earliest first, at most `limit`. */
  due(now: number, limit: number): Promise<DeliveryRecord[]>;
  /**
   * Takes a due delivery for one attempt until `until` (attempts + 1): the record as
   * claimed, or undefined when it is not due or someone else took it first.
   */
  claim(
    deliveryId: string,
    owner: string,
    until: number,
    now: number,
  ): Promise<DeliveryRecord | undefined>;
  /** Records the attempt's result; false when `owner` no longer holds the claim. */
  settle(deliveryId: string, owner: string, result: DeliveryResult, now: number): Promise<boolean>;
  get(deliveryId: string): Promise<DeliveryRecord | undefined>;
  /** Deliveries newest first, all or those with `status`, a page at a time. */
  list(query: DeliveryQuery): Promise<Page<DeliveryRecord>>;
  /** Makes a delivery due now again, attempts from zero (an admin's re-send). */
  resend(deliveryId: string, now: number): Promise<DeliveryRecord | undefined>;
}

/** The planning every outbox keeps (`Outbox.planWith`); each store's outbox extends it. */
export abstract class PlannedOutbox {
  planner?: DeliveryPlanner;
  retentionSeconds = DEFAULT_DELIVERY_RETENTION_SECONDS;

  planWith(
    planner: DeliveryPlanner,
    retentionSeconds = DEFAULT_DELIVERY_RETENTION_SECONDS,
  ): () => void {
    this.planner = planner;
    this.retentionSeconds = retentionSeconds;
    return () => {
      if (this.planner === planner) this.planner = undefined;
    };
  }
}
