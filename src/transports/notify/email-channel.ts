import nodemailer, { type Transporter } from 'nodemailer';
import type { ApprovalEvent, ApprovalEventType } from '../../core/approval-event.js';
import { HoldpointError } from '../../core/errors.js';
import {
  type DeliveryContext,
  DeliveryFailure,
  type NotificationChannel,
} from '../../runtime/notify/channel.js';
import type { DeliveryRecord } from '../../store/outbox.js';
import { escapeHtml } from '../escape-html.js';

/** Where the email channel sends from, and through what. */
export interface EmailChannelOptions {
  /** The SMTP server: `smtp://user:pass@host:587`, `smtps://…` (one of this or `transport`). */
  smtpUrl?: string;
  /** A nodemailer transport of the host's own (tests, or a provider's transport). */
  transport?: Transporter;
  /** The sender: `Holdpoint <holdpoint@example.com>`. */
  from: string;
  /** The channel's name, for `notify.channels`. Default `email`. */
  name?: string;
}

/** At most this much of the arguments goes into a message. */
const MAX_ARGS_CHARS = 4_000;

/** Events after which the approval may still be decided: their messages carry the link. */
const OPEN_EVENTS: ReadonlySet<ApprovalEventType> = new Set([
  'requested',
  'reminded',
  'escalated',
  'delegated',
]);

/**
 * Whether `event` leaves its approval waiting for people: every event but a settling
 * decision, an expiry and a cancellation. A vote short of the quorum is `decided` and
 * still waits for the others' votes.
 */
const stillOpen = (event: ApprovalEvent) =>
  OPEN_EVENTS.has(event.type) || (event.type === 'decided' && event.approval.status === 'pending');

/** A header's text without line breaks (nothing a tool's name could add a header with). */
const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ').slice(0, 200);

/**
 * The subject line of `event`, by what happened; for someone who may not decide it
 * (`decides` false), an approval still waiting is not asked of them.
 */
export function subjectOf(event: ApprovalEvent, decides = true): string {
  const what = `${oneLine(event.approval.tool_name)} (${oneLine(event.app)})`;
  if (!decides && OPEN_EVENTS.has(event.type)) return `[Holdpoint] Waiting for approval: ${what}`;
  switch (event.type) {
    case 'requested':
      return `[Holdpoint] Approval needed: ${what}`;
    case 'reminded':
      return `[Holdpoint] Reminder: approval needed: ${what}`;
    case 'escalated':
      return `[Holdpoint] Escalated: approval needed: ${what}`;
    case 'delegated':
      return `[Holdpoint] Handed to you: approval needed: ${what}`;
    case 'decided':
      if (stillOpen(event)) return `[Holdpoint] Vote recorded, approval still needed: ${what}`;
      return `[Holdpoint] ${event.decision?.approved ? 'Approved' : 'Rejected'}: ${what}`;
    case 'expired':
      return `[Holdpoint] Expired: ${what}`;
    case 'cancelled':
      return `[Holdpoint] Cancelled: ${what}`;
  }
}

/** A moment as people read it in a message: `2026-11-22 12:00 UTC`. */
const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** What happened, for someone told of an approval they may not decide. */
function informationHeadline(event: ApprovalEvent): string {
  switch (event.type) {
    case 'requested':
      return 'For your information: an agent waits for approval.';
    case 'reminded':
      return 'For your information: an agent still waits for approval.';
    case 'escalated':
      return 'For your information: an approval nobody decided in time was escalated.';
    default: // delegated: the last event that leaves it waiting
      return `For your information: ${event.actor} handed this approval to ${event.delegation?.to.join(', ') ?? 'someone else'}.`;
  }
}

/**
 * What happened, in one sentence, for the top of the message; for someone who may not
 * decide it (`decides` false), a waiting approval is not said to wait for them.
 */
function headline(event: ApprovalEvent, decides: boolean): string {
  const { decision } = event;
  if (!decides && OPEN_EVENTS.has(event.type)) return informationHeadline(event);
  switch (event.type) {
    case 'requested':
      return 'An agent waits for your approval.';
    case 'reminded':
      return 'Reminder: an agent still waits for your approval.';
    case 'escalated':
      return 'An approval nobody decided in time was escalated to you.';
    case 'delegated':
      return `${event.actor} handed this approval to you.`;
    case 'decided': {
      const verdict = decision?.approved ? 'approved' : 'rejected';
      const by = decision?.on_behalf_of
        ? `${decision.decided_by} (for ${decision.on_behalf_of})`
        : (decision?.decided_by ?? event.actor);
      const through = decision?.channel ? ` through ${decision.channel}` : '';
      const more = stillOpen(event) ? ' It waits for more approvals.' : '';
      return `${by} ${verdict} it${through} at ${when(event.at)}.${more}`;
    }
    case 'expired':
      return 'Nobody decided it in time: it expired.';
    case 'cancelled':
      return 'Its run was cancelled: nothing to decide any more.';
  }
}

/** The parts of a message, before they are written as text or HTML. */
interface MessageParts {
  headline: string;
  facts: [string, string][];
  args: string;
  reason?: string;
  link?: { url: string; label: string };
  onBehalfOf?: string;
}

function partsOf(delivery: DeliveryRecord, ctx: DeliveryContext): MessageParts {
  const { event } = delivery;
  const { approval } = event;
  const json = JSON.stringify(approval.args, null, 2) ?? '{}';
  const open = stillOpen(event);
  // A link is bound to one person: a role's shared address gets the web UI's page instead.
  const person = ctx.recipient.audience.startsWith('user:')
    ? ctx.recipient.audience.slice('user:'.length)
    : undefined;
  // Someone only told of it (no approver) gets no decision link, nor is asked to decide.
  const decides = ctx.recipientMayDecide;
  // An approval that asks for an answer (`input`) is answered in the web UI, not by yes or no.
  const linked = open && decides && person && approval.kind === 'confirmation';
  const decide = linked ? ctx.decisionLink(approval.approval_id, person) : undefined;
  const page = ctx.approvalUrl(approval.approval_id);
  const link = decide
    ? { url: decide, label: 'Approve or reject' }
    : page
      ? { url: page, label: open && decides ? 'Decide in Holdpoint' : 'Open Holdpoint' }
      : undefined;
  return {
    headline: headline(event, decides),
    facts: [
      ['App', event.app],
      ['Tool', approval.tool_name],
      ['Question', approval.hint],
      ...(open ? ([['Waits until', when(approval.expires_at)]] as [string, string][]) : []),
    ],
    args: json.length > MAX_ARGS_CHARS ? `${json.slice(0, MAX_ARGS_CHARS)}\n… (cut)` : json,
    reason: event.type === 'decided' ? event.decision?.reason : undefined,
    link,
    onBehalfOf: ctx.recipient.onBehalfOf,
  };
}

function textOf(parts: MessageParts): string {
  const lines = [parts.headline, ''];
  if (parts.onBehalfOf) lines.push(`(You receive this for ${parts.onBehalfOf}.)`, '');
  for (const [name, value] of parts.facts) lines.push(`${name}: ${value}`);
  lines.push('', 'Arguments:', parts.args);
  if (parts.reason) lines.push('', `Reason: ${parts.reason}`);
  if (parts.link) lines.push('', `${parts.link.label}: ${parts.link.url}`);
  if (parts.link?.label === 'Approve or reject') {
    lines.push('', 'The link works once, for you only; opening it decides nothing.');
  }
  return `${lines.join('\n')}\n`;
}

function htmlOf(parts: MessageParts): string {
  const facts = parts.facts
    .map(
      ([name, value]) =>
        `<tr><th align="left">${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`,
    )
    .join('');
  return [
    '<!doctype html><html><body>',
    `<p>${escapeHtml(parts.headline)}</p>`,
    parts.onBehalfOf ? `<p>(You receive this for ${escapeHtml(parts.onBehalfOf)}.)</p>` : '',
    `<table>${facts}</table>`,
    `<p>Arguments:</p><pre>${escapeHtml(parts.args)}</pre>`,
    parts.reason ? `<p>Reason: ${escapeHtml(parts.reason)}</p>` : '',
    parts.link
      ? `<p><a href="${escapeHtml(parts.link.url)}">${escapeHtml(parts.link.label)}</a></p>`
      : '',
    '</body></html>',
  ].join('\n');
}

/** Whether an SMTP answer says the message will never be taken (5xx): no retry helps. */
function isPermanent(error: unknown): boolean {
  const code = (error as { responseCode?: number } | undefined)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

/**
 * Email over SMTP (nodemailer): one message per person or role that has an address in
 * the directory, as plain text and HTML. A person who may decide gets their own signed
 * decision link while the approval is open; a role's shared address gets the web UI's
 * page instead (a link is bound to one approver); someone only told of it (no approver)
 * gets the facts, with no link to decide. The delivery id is the Message-ID, so a
 * message sent twice (at least once) is recognisably the same one.
 */
export function emailChannel({
  smtpUrl,
  transport,
  from,
  name = 'email',
}: EmailChannelOptions): NotificationChannel {
  const mailer = transport ?? (smtpUrl ? nodemailer.createTransport(smtpUrl) : undefined);
  if (!mailer) {
    throw new HoldpointError('VALIDATION_FAILED', 'emailChannel: give smtpUrl or transport.');
  }
  return {
    name,
    audience: 'people',
    async send(delivery, ctx) {
      const to = ctx.recipient.address?.email;
      if (!to) {
        throw new DeliveryFailure(`No email address for ${ctx.recipient.audience}.`, false);
      }
      const parts = partsOf(delivery, ctx);
      let abort = () => {};
      const aborted = new Promise<never>((_, reject) => {
        abort = () => reject(new DeliveryFailure('The SMTP server took too long.'));
      });
      // Settled either way: an abort after the message went out is nobody's error.
      aborted.catch(() => {});
      if (ctx.signal.aborted) abort();
      ctx.signal.addEventListener('abort', abort, { once: true });
      try {
        const info = await Promise.race([
          mailer.sendMail({
            from,
            to,
            subject: subjectOf(delivery.event, ctx.recipientMayDecide),
            text: textOf(parts),
            html: htmlOf(parts),
            messageId: `<${delivery.deliveryId}@holdpoint>`,
            headers: { 'X-Holdpoint-Delivery': delivery.deliveryId },
          }),
          aborted,
        ]);
        return { ref: String(info.messageId) };
      } catch (error) {
        if (error instanceof DeliveryFailure) throw error;
        throw new DeliveryFailure(
          `SMTP: ${error instanceof Error ? error.message : String(error)}`,
          !isPermanent(error),
        );
      } finally {
        ctx.signal.removeEventListener('abort', abort);
      }
    },
  };
}
