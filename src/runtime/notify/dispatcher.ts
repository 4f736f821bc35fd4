import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ApprovalEventType } from '../../core/approval-event.js';
import type { Clock } from '../../core/clock.js';
import { undeliveredTransition } from '../../session/transitions/index.js';
import { type DeliveryRecord, type DeliveryResult, deliveryIdOf } from '../../store/outbox.js';
import type { HoldpointStore } from '../../store/store.js';
import {
  type DeliveryContext,
  DeliveryFailure,
  type MessageLinks,
  type NotificationChannel,
} from './channel.js';
import { directoryRolesOf } from './directory-members.js';
import type { NotificationDirectory } from './notification-options.js';
import { deliveryPlanner } from './plan-deliveries.js';
import { recipientMayDecide } from './recipient-may-decide.js';

/** How long an `undelivered` audit line's reason may be (the audit's limit for reasons). */
const UNDELIVERED_REASON_LENGTH = 2000;

/** Retries: the first after `baseMs`, each next twice as late, never later than `maxMs`. */
export interface Backoff {
  baseMs: number;
  maxMs: number;
}

/** How deliveries go out: the channels, where people are reached, and the retry policy. */
export interface DispatcherOptions {
  /** The channels deliveries are planned for and sent through, by name. */
  channels: readonly NotificationChannel[];
  /** Where people and roles are reached (each channel reads its own address). */
  directory?: NotificationDirectory;
  /** Signed decision links and the web UI's addresses; without it messages carry neither. */
  links?: MessageLinks;
  /**
   * The out-of-office delegate of `userId` at `now`, if any: a `user:` delivery then goes
   * to the delegate's address, on behalf of `userId`. Default: nobody is away.
   */
  delegateOf?: (userId: string, now: number) => Promise<string | undefined>;
  /** Attempts per delivery before it is given up. Default 8. */
  maxAttempts?: number;
  /** How long one attempt may take before it is aborted and counted failed. Default 10 s. */
  attemptTimeoutMs?: number;
  /**
   * How long a claim holds a delivery: a process that dies mid-attempt leaves it due
   * again this long after it claimed it. Default the attempt timeout + 20 s.
   */
  claimMs?: number;
  /** Default 5 s doubling up to 1 h. */
  backoff?: Backoff;
  /** Jitter: a retry comes up to a fifth earlier than its backoff, by `random()` in [0, 1). */
  random?: () => number;
  /** Deliveries read per batch (claimed and sent at once). Default 50. */
  batchSize?: number;
  /** Told how each attempt ended (for metrics). */
  onSettled?: (delivery: DeliveryRecord, result: DeliveryResult) => void;
  /** How long the store keeps each delivery after it is written. Default 7 days. */
  retentionSeconds?: number;
}

const DEFAULT_MAX_ATTEMPTS = 8;
const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;
const DEFAULT_BACKOFF: Backoff = { baseMs: 5_000, maxMs: 3_600_000 };
const DEFAULT_BATCH = 50;
/** Batches per pass: what is left waits for the next nudge or beat. */
const MAX_BATCHES = 20;
const JITTER = 0.2;
/** Audit lines read per page when looking for an earlier event. */
const AUDIT_PAGE = 200;

/**
 * How long after attempt number `attempts` (1 for the first) the next one comes:
 * min(base·2^(attempts−1), max), up to a fifth earlier by `random`.
 */
export function retryDelay(attempts: number, backoff: Backoff, random: () => number): number {
  const capped = Math.min(backoff.baseMs * 2 ** Math.max(0, attempts - 1), backoff.maxMs);
  return Math.round(capped * (1 - JITTER * random()));
}

/** Why an attempt failed, in words for the delivery's `lastError`. */
function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Empties the store's outbox through the channels: reads what is due, claims each
 * delivery (only one process gets it; the claim counts the attempt and holds it for
 * `claimMs`), sends it with a per-attempt timeout, and settles it: sent, failed (due
 * again after a backoff) or given up (a DeliveryFailure that is not retryable, or the
 * last attempt). A process that dies between sending and settling leaves the delivery
 * due again when its claim ends, under the same id: at least once, never lost.
 *
 * Driven by the sweeper's beat (retries, other processes' commits; one instance at a
 * time) and nudged in process by the outbox after a commit that wrote deliveries. It
 * reads only what is due now from the due index: deliveries waiting for a retry cost
 * nothing until then, and no timer is kept per delivery. From its construction until
 * `stop`, the store's commits plan deliveries for its channels.
 */
export class DeliveryDispatcher {
  /** Who claims deliveries: this dispatcher, in this process. */
  readonly owner = `dispatcher-${randomUUID()}`;
  private readonly channels: Map<string, NotificationChannel>;
  private readonly maxAttempts: number;
  private readonly attemptTimeoutMs: number;
  private readonly claimMs: number;
  private readonly backoff: Backoff;
  private readonly random: () => number;
  private readonly batchSize: number;
  private pass?: Promise<number>;
  private again = false;
  private stopped = false;
  /** Aborts the attempts in flight when the dispatcher stops (they are retried later). */
  private readonly stopping = new AbortController();
  /** Stops the store's commits planning deliveries, and nudging this dispatcher. */
  private readonly detach: () => void;

  constructor(
    private readonly store: HoldpointStore,
    private readonly options: DispatcherOptions,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.channels = new Map(options.channels.map((channel) => [channel.name, channel]));
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
    this.claimMs = options.claimMs ?? this.attemptTimeoutMs + 20_000;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.random = options.random ?? Math.random;
    this.batchSize = options.batchSize ?? DEFAULT_BATCH;
    // From here on the store's commits plan deliveries for these channels, and nudge
    // this dispatcher once they are stored (never before): they go out at once instead
    // of at the next sweep.
    const stopPlanning = store.outbox.planWith(
      deliveryPlanner(options.channels, options.directory),
      options.retentionSeconds,
    );
    const stopObserving = store.observeCommits((_before, writes) => {
      if (writes.deliveries?.length) this.nudge();
    });
    this.detach = () => {
      stopPlanning();
      stopObserving();
    };
  }

  /** Sends what is due soon, in the background (after a commit that wrote deliveries). */
  nudge(): void {
    void this.dispatch().catch((error: unknown) => {
      this.logger.warn({ err: error }, 'delivering notifications failed');
    });
  }

  /**
   * Sends everything due now; resolves with how many attempts it made. A call while a
   * pass runs makes that pass go round once more, and resolves with it.
   */
  dispatch(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    if (this.pass) {
      this.again = true;
      return this.pass;
    }
    this.pass = this.passes().finally(() => {
      this.pass = undefined;
    });
    return this.pass;
  }

  /**
   * Stops planning and sending: the attempts in flight are aborted (and retried later, by
   * any instance); resolves once they are settled.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort(new DeliveryFailure('The dispatcher stopped.'));
    this.detach();
    await this.pass?.catch(() => {});
  }

  private async passes(): Promise<number> {
    let attempts = 0;
    do {
      this.again = false;
      for (let batch = 0; batch < MAX_BATCHES && !this.stopped; batch++) {
        const due = await this.store.outbox.due(this.clock.now(), this.batchSize);
        const made = await Promise.all(due.map((delivery) => this.attempt(delivery)));
        attempts += made.filter(Boolean).length;
        if (due.length < this.batchSize) break;
      }
    } while (this.again && !this.stopped);
    return attempts;
  }

  /** One attempt at one delivery, if this dispatcher wins its claim; whether it did. */
  private async attempt(due: DeliveryRecord): Promise<boolean> {
    const now = this.clock.now();
    const claimed = await this.store.outbox.claim(
      due.deliveryId,
      this.owner,
      now + this.claimMs,
      now,
    );
    if (!claimed) return false;
    const result = await this.send(claimed);
    const settled = await this.store.outbox.settle(
      claimed.deliveryId,
      this.owner,
      result,
      this.clock.now(),
    );
    const log = this.logger.child({
      delivery_id: claimed.deliveryId,
      channel: claimed.channel,
      recipient: claimed.recipient,
      event_type: claimed.event.type,
      attempts: claimed.attempts,
    });
    if (!settled) {
      log.info('a delivery attempt ended after its claim was taken over; the next one settles it');
    } else if (result.status === 'gave_up') {
      log.warn({ error: result.error }, 'gave up a notification');
      await this.recordUndelivered(claimed, result.error, log);
    } else if (result.status === 'failed') {
      log.info({ error: result.error }, 'a notification attempt failed; retrying later');
    }
    if (settled) this.options.onSettled?.(claimed, result);
    return true;
  }

  /**
   * Writes the give-up into the session's audit log (`undelivered`), so the log shows who
   * was never told; a session gone meanwhile (or a store that fails) leaves the log line
   * above as the only trace.
   */
  private async recordUndelivered(
    delivery: DeliveryRecord,
    error: string,
    log: Logger,
  ): Promise<void> {
    const { event } = delivery;
    const notice = {
      invocationId: event.invocation_id,
      approvalId: event.approval.approval_id,
      toolName: event.approval.tool_name,
      channel: delivery.channel,
      reason: `${delivery.recipient}: ${error}`.slice(0, UNDELIVERED_REASON_LENGTH),
    };
    try {
      await this.store.apply(event.session_id, undeliveredTransition, [notice, this.clock.now()]);
    } catch (failure) {
      log.warn({ err: failure }, 'could not record the given-up notification in the audit log');
    }
  }

  /** Sends a claimed delivery through its channel: how the attempt ended. */
  private async send(delivery: DeliveryRecord): Promise<DeliveryResult> {
    const channel = this.channels.get(delivery.channel);
    if (!channel) {
      return { status: 'gave_up', error: `No channel named ${delivery.channel} is configured.` };
    }
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new DeliveryFailure(`No answer within ${this.attemptTimeoutMs} ms.`)),
      this.attemptTimeoutMs,
    );
    const signal = AbortSignal.any([timeout.signal, this.stopping.signal]);
    try {
      const ctx = await this.contextOf(delivery, signal);
      // A channel that ignores its signal is still left behind at the timeout.
      const aborted = new Promise<never>((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      const sent = await Promise.race([channel.send(delivery, ctx), aborted]);
      return { status: 'sent', ...(sent?.ref === undefined ? {} : { ref: sent.ref }) };
    } catch (error) {
      const reason = signal.aborted ? reasonOf(signal.reason) : reasonOf(error);
      const final = error instanceof DeliveryFailure && !error.retryable;
      if (final || delivery.attempts >= this.maxAttempts) {
        const why = final
          ? reason
          : `${reason} (attempt ${delivery.attempts} of ${this.maxAttempts})`;
        return { status: 'gave_up', error: why };
      }
      const retryAt = this.clock.now() + retryDelay(delivery.attempts, this.backoff, this.random);
      return { status: 'failed', error: reason, retryAt };
    } finally {
      clearTimeout(timer);
    }
  }

  /** What the channel knows while sending `delivery`. */
  private async contextOf(delivery: DeliveryRecord, signal: AbortSignal): Promise<DeliveryContext> {
    const { links, directory } = this.options;
    const { event } = delivery;
    const recipient = await this.recipientOf(delivery.recipient);
    const mayDecide = recipientMayDecide(event, recipient, (id) => directoryRolesOf(directory, id));
    return {
      recipient,
      recipientMayDecide: mayDecide,
      // Only for someone who may decide: a link anyone else followed would answer 403.
      decisionLink: (approvalId, approver) =>
        mayDecide && approvalId === event.approval.approval_id
          ? links?.decisionLink(event, approver)
          : undefined,
      approvalUrl: (approvalId) => links?.approvalUrl(approvalId),
      earlier: (type) => this.earlier(delivery, type),
      signal,
    };
  }

  /**
   * Whom a delivery to `recipient` reaches: its address in the directory, or for someone
   * out of office, their delegate's (on their behalf).
   */
  private async recipientOf(recipient: string): Promise<DeliveryContext['recipient']> {
    const directory = this.options.directory ?? {};
    if (recipient.startsWith('user:')) {
      const userId = recipient.slice('user:'.length);
      const delegate = await this.options.delegateOf?.(userId, this.clock.now());
      if (delegate && delegate !== userId) {
        const address = directory.users?.[delegate];
        return {
          audience: `user:${delegate}`,
          onBehalfOf: userId,
          ...(address ? { address } : {}),
        };
      }
      const address = directory.users?.[userId];
      return { audience: recipient, ...(address ? { address } : {}) };
    }
    if (recipient.startsWith('role:')) {
      const address = directory.roles?.[recipient.slice('role:'.length)];
      return { audience: recipient, ...(address ? { address } : {}) };
    }
    return { audience: recipient };
  }

  /**
   * This channel's and recipient's delivery of the latest `type` event of the same
   * approval before `delivery`'s that it got (an escalation step may have gone to others).
   * Its id is derived, not stored: an event's id is the hash of its audit line, found in
   * the session's audit log (read up to `delivery`'s own line), and a delivery's id is
   * `deliveryIdOf(event id, channel, recipient)`.
   */
  private async earlier(
    delivery: DeliveryRecord,
    type: ApprovalEventType,
  ): Promise<DeliveryRecord | undefined> {
    const { event } = delivery;
    const events: string[] = [];
    search: for (let offset = 0; ; offset += AUDIT_PAGE) {
      const lines = await this.store.listAudit(event.session_id, offset, AUDIT_PAGE);
      for (const line of lines) {
        if (line.hash === event.id) break search;
        const same = line.action === type && line.approvalId === event.approval.approval_id;
        if (same && line.hash) events.push(line.hash);
      }
      if (lines.length < AUDIT_PAGE) break;
    }
    for (const eventId of events.reverse()) {
      const found = await this.store.outbox.get(
        deliveryIdOf(eventId, delivery.channel, delivery.recipient),
      );
      if (found) return found;
    }
    return undefined;
  }
}
