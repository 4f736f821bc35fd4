import type { ApprovalEvent, ApprovalEventType } from '../../core/approval-event.js';
import type { DeliveryRecord } from '../../store/outbox.js';

/**
 * A way to tell people about approvals: webhooks, Slack, email, or a host's own. One
 * small module each; the dispatcher calls `send` for each due delivery and stores what
 * became of it.
 */
export interface NotificationChannel {
  /** Stable name; deliveries, settings and the per-tool `notify.channels` use it. */
  readonly name: string;
  /**
   * `people`: one delivery per audience of the approval (`user:<id>`, `role:<name>`);
   * `endpoint`: one delivery per event (a webhook).
   */
  readonly audience: 'people' | 'endpoint';
  /**
   * Sends one delivery; what it resolves with is kept with the delivery (`ref`). Throws
   * DeliveryFailure (or any error: retried) when it was not sent.
   */
  send(delivery: DeliveryRecord, ctx: DeliveryContext): Promise<{ ref?: string } | undefined>;
}

/** What a channel knows while sending one delivery. */
export interface DeliveryContext {
  /**
   * Whom it goes to: the audience, its address in the host's directory (absent when it
   * has none), and for someone out of office, whom it was meant for.
   */
  recipient: { audience: string; address?: RecipientAddress; onBehalfOf?: string };
  /**
   * Whether the recipient may decide the approval: one of its approvers, by name,
   * ownership or role (the directory's `members` for a person). False for someone only
   * told of it (a `notify.to` who is no approver) and for endpoints: tell them, never
   * ask them to decide.
   */
  recipientMayDecide: boolean;
  /**
   * A signed decision link for `approver` (a principal id), or undefined when links are
   * off or the recipient may not decide (`recipientMayDecide`).
   */
  decisionLink(approvalId: string, approver: string): string | undefined;
  /** The web UI's address of the approval (for a role, whose members cannot get a personal link). */
  approvalUrl(approvalId: string): string | undefined;
  /** This channel's and recipient's delivery of an earlier event of the same approval. */
  earlier(type: ApprovalEventType): Promise<DeliveryRecord | undefined>;
  /** Aborted when the attempt takes too long. */
  signal: AbortSignal;
}

/** Where a person or a role is reached, per channel, as the host's directory says. */
export interface RecipientAddress {
  email?: string;
  /** A Slack user id (`U…`) or channel id (`C…`). */
  slack?: string;
  /** A host's own channels read what they need from here. */
  [channel: string]: string | undefined;
}

/** A delivery that was not sent; `retryable: false` gives up at once (e.g. a 4xx answer). */
export class DeliveryFailure extends Error {
  constructor(
    message: string,
    readonly retryable = true,
  ) {
    super(message);
    this.name = 'DeliveryFailure';
  }
}

/** What a decision link binds: the approval, the arguments' hash it shows, its expiry. */
export interface LinkedApproval {
  approvalId: string;
  argsHash: string;
  /** Ms since the epoch: a link never outlives its approval. */
  expiresAt: number;
}

/**
 * Makes the addresses messages carry: signed decision links (decision-links.ts) and the
 * web UI's page of an approval. The dispatcher builds each delivery's `decisionLink` and
 * `approvalUrl` from it; without one, messages carry neither.
 */
export interface MessageLinks {
  /** A signed, single-use link for `approver` to decide the approval `event` is about. */
  decisionLink(event: ApprovalEvent, approver: string): string | undefined;
  /**
   * The same for an approval known by its id, its arguments' hash and its expiry (a
   * protocol's client sent to the link: MCP's URL elicitation).
   */
  decisionLinkTo(approval: LinkedApproval, approver: string): string | undefined;
  /** The web UI's address of an approval. */
  approvalUrl(approvalId: string): string | undefined;
}
