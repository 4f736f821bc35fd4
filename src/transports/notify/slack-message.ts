import type { ApprovalEvent } from '../../core/approval-event.js';

/** The buttons' action ids: the interactivity endpoint decides on these and ignores others. */
export const APPROVE_ACTION = 'holdpoint_approve';
export const REJECT_ACTION = 'holdpoint_reject';

/** A Block Kit block, as far as Holdpoint writes them. */
export type SlackBlock = Record<string, unknown>;

/** What chat.postMessage / chat.update get beside the channel: the notification text and the blocks. */
export interface SlackMessage {
  text: string;
  blocks: SlackBlock[];
}

// Slack refuses a section text over 3,000 characters and a header over 150.
const MAX_ARGS_CHARS = 2_500;
const MAX_TEXT_CHARS = 2_900;
const MAX_HEADER_CHARS = 150;

/** The arguments a button names: the approval and the hash of the arguments the person saw. */
export function buttonValue(approvalId: string, argsHash: string): string {
  return `${approvalId}|${argsHash}`;
}

/** The approval id and arguments hash of a button's value; undefined when it is not one of ours. */
export function parseButtonValue(
  value: string,
): { approvalId: string; argsHash: string } | undefined {
  const bar = value.lastIndexOf('|');
  if (bar <= 0 || bar === value.length - 1) return undefined;
  return { approvalId: value.slice(0, bar), argsHash: value.slice(bar + 1) };
}

/**
 * At most `max` characters as Slack counts them (UTF-16 units), cut between code points
 * (an emoji is never halved) and never inside an escape (`&amp;`), marked when cut.
 */
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let kept = '';
  for (const point of text) {
    if (kept.length + point.length > max - 1) break;
    kept += point;
  }
  return `${kept.replace(/&[a-z]*$/, '')}…`;
}

/** Text as Slack's mrkdwn shows it literally: its three control characters escaped. */
function escapeMrkdwn(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** The arguments as a code block that no argument can close early or overflow. */
function argsBlock(args: Record<string, unknown>): string {
  // A zero-width space between backticks keeps an argument from ending the code block.
  const code = escapeMrkdwn(JSON.stringify(args, null, 2) ?? '{}').replaceAll(
    '```',
    '`\u200b`\u200b`',
  );
  return `\`\`\`${truncate(code, MAX_ARGS_CHARS)}\`\`\``;
}

/** A time as Slack shows it in the reader's own time zone, with a fallback for old clients. */
function slackDate(iso: string, format = '{date_short_pretty} at {time}'): string {
  const seconds = Math.floor(Date.parse(iso) / 1000);
  return `<!date^${seconds}^${format}|${iso}>`;
}

/** "3 h 5 min", "12 min", "less than a minute"; "expired" once past. */
function timeLeft(untilMs: number, nowMs: number): string {
  const minutes = Math.floor((untilMs - nowMs) / 60_000);
  if (untilMs <= nowMs) return 'expired';
  if (minutes < 1) return 'less than a minute';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  if (days > 0) return `${days} d ${hours} h`;
  return hours > 0 ? `${hours} h ${rest} min` : `${rest} min`;
}

const section = (text: string): SlackBlock => ({
  type: 'section',
  text: { type: 'mrkdwn', text: truncate(text, MAX_TEXT_CHARS) },
});

const context = (text: string): SlackBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: truncate(text, MAX_TEXT_CHARS) }],
});

/**
 * What every message about the approval shows: what it is for, the hint, the arguments;
 * while it is `open`, the time left to decide.
 */
function approvalBlocks(event: ApprovalEvent, nowMs: number, open: boolean): SlackBlock[] {
  const { approval } = event;
  const title = `${open ? 'Approval needed' : 'Approval'}: ${approval.tool_name}`;
  const deadline = `${timeLeft(Date.parse(approval.expires_at), nowMs)} (until ${slackDate(approval.expires_at)})`;
  return [
    { type: 'header', text: { type: 'plain_text', text: truncate(title, MAX_HEADER_CHARS) } },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*App*\n${escapeMrkdwn(event.app)}` },
        { type: 'mrkdwn', text: `*Tool*\n\`${escapeMrkdwn(approval.tool_name)}\`` },
        { type: 'mrkdwn', text: `*Approval*\n\`${escapeMrkdwn(approval.approval_id)}\`` },
        ...(open ? [{ type: 'mrkdwn', text: `*Time left*\n${deadline}` }] : []),
      ],
    },
    ...(approval.hint ? [section(escapeMrkdwn(approval.hint))] : []),
    section(`*Arguments*\n${argsBlock(approval.args)}`),
  ];
}

/** Where to read more: the web UI's page of the approval, when the server knows its address. */
function linkBlocks(approvalUrl: string | undefined, onBehalfOf: string | undefined): SlackBlock[] {
  const notes = [
    ...(onBehalfOf ? [`For ${escapeMrkdwn(onBehalfOf)}, who is out of office.`] : []),
    ...(approvalUrl ? [`<${approvalUrl}|Open in Holdpoint>`] : []),
  ];
  return notes.length > 0 ? [context(notes.join('  ·  '))] : [];
}

/** What a person may still do: approve or reject, bound to the arguments they see. */
function decisionButtons(event: ApprovalEvent): SlackBlock {
  const value = buttonValue(event.approval.approval_id, event.approval.args_hash);
  return {
    type: 'actions',
    block_id: 'holdpoint_decision',
    elements: [
      {
        type: 'button',
        action_id: APPROVE_ACTION,
        text: { type: 'plain_text', text: 'Approve' },
        style: 'primary',
        value,
      },
      {
        type: 'button',
        action_id: REJECT_ACTION,
        text: { type: 'plain_text', text: 'Reject' },
        style: 'danger',
        value,
      },
    ],
  };
}

/** Who is told, whether they may decide, and what the message links to. */
export interface MessageOptions {
  now: number;
  approvalUrl?: string;
  onBehalfOf?: string;
  /** Whether the recipient may decide it: without, the message tells, with no buttons. */
  mayDecide: boolean;
}

/** Instead of the buttons, for someone only told of the approval (no approver). */
const INFORMATION_ONLY = context('For your information: others decide this approval.');

/**
 * The message asking for a decision: the approval, and Approve / Reject buttons; for
 * someone who may not decide it, the same without buttons, saying so.
 */
export function requestMessage(event: ApprovalEvent, options: MessageOptions): SlackMessage {
  const { approval } = event;
  return {
    text: `Approval needed: ${approval.tool_name} (${event.app})`,
    blocks: [
      ...approvalBlocks(event, options.now, true),
      options.mayDecide ? decisionButtons(event) : INFORMATION_ONLY,
      ...linkBlocks(options.approvalUrl, options.onBehalfOf),
    ],
  };
}

/** One line saying what this event changed (a reminder, an escalation, a decision, …). */
export function eventLine(event: ApprovalEvent): string {
  const tool = `\`${escapeMrkdwn(event.approval.tool_name)}\``;
  const who = escapeMrkdwn(event.actor);
  const at = slackDate(event.at);
  switch (event.type) {
    case 'requested':
      return `${tool} waits for a decision.`;
    case 'reminded':
      return `:bell: Reminder${event.reminder ? ` ${event.reminder.count}` : ''}: ${tool} still waits for a decision.`;
    case 'escalated':
      return `:arrow_up: Escalated${event.escalation ? ` to ${escapeMrkdwn(event.escalation.to.join(', '))}` : ''}: ${tool} still waits for a decision.`;
    case 'delegated':
      return `:arrow_right: ${who} handed this approval to ${escapeMrkdwn(event.delegation?.to.join(', ') ?? 'someone else')}.`;
    case 'decided':
      return decisionLine(event, at);
    case 'expired':
      return `:hourglass: Expired ${at}: nobody decided in time.`;
    case 'cancelled':
      return `:no_entry_sign: Cancelled by ${who} ${at}.`;
  }
}

function decisionLine(event: ApprovalEvent, at: string): string {
  const decision = event.decision;
  if (!decision) return `Decided ${at}.`;
  const by = escapeMrkdwn(decision.decided_by);
  const behalf = decision.on_behalf_of ? ` for ${escapeMrkdwn(decision.on_behalf_of)}` : '';
  const through = decision.channel ? ` (via ${escapeMrkdwn(decision.channel)})` : '';
  const reason = decision.reason ? `: ${escapeMrkdwn(decision.reason)}` : '';
  const verb = decision.approved ? ':white_check_mark: Approved' : ':x: Rejected';
  // A vote short of the quorum settles nothing yet: the buttons stay.
  const more = event.approval.status === 'pending' ? ' It waits for more approvals.' : '';
  return `${verb} by ${by}${behalf}${through} ${at}${reason}.${more}`;
}

/**
 * The first message, rewritten once the approval changed: what it was, what became of
 * it; the buttons only while it still waits (a vote short of the quorum), for those who
 * may decide it.
 */
export function outcomeMessage(event: ApprovalEvent, options: MessageOptions): SlackMessage {
  const line = eventLine(event);
  const stillOpen = event.approval.status === 'pending';
  return {
    text: `${event.approval.tool_name} (${event.app}): ${line}`,
    blocks: [
      ...approvalBlocks(event, options.now, stillOpen),
      section(line),
      ...(stillOpen && options.mayDecide ? [decisionButtons(event)] : []),
      ...linkBlocks(options.approvalUrl, options.onBehalfOf),
    ],
  };
}

/** The modal a Reject press opens (its `callback_id`): the interactivity endpoint decides on its submission. */
export const REJECT_VIEW = 'holdpoint_reject_reason';
const REASON_BLOCK = 'holdpoint_reason';
const REASON_INPUT = 'reason';
const MAX_REASON_CHARS = 2_000;

/**
 * The modal Reject opens (`views.open`): an optional reason the agent will see, bound
 * like the button to the approval and the arguments hash the person saw
 * (`private_metadata`, the button's value).
 */
export function rejectReasonView(approvalId: string, argsHash: string): SlackBlock {
  return {
    type: 'modal',
    callback_id: REJECT_VIEW,
    private_metadata: buttonValue(approvalId, argsHash),
    title: { type: 'plain_text', text: 'Reject' },
    submit: { type: 'plain_text', text: 'Reject' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      section(
        `Reject approval \`${escapeMrkdwn(truncate(approvalId, 200))}\`? The agent sees your reason and may go on from it.`,
      ),
      {
        type: 'input',
        block_id: REASON_BLOCK,
        optional: true,
        label: { type: 'plain_text', text: 'Reason' },
        element: {
          type: 'plain_text_input',
          action_id: REASON_INPUT,
          multiline: true,
          max_length: MAX_REASON_CHARS,
        },
      },
    ],
  };
}

/** The reason typed into the Reject modal (its submitted state); undefined when left empty. */
export function submittedReason(
  values: Record<string, Record<string, { value?: string | null }>>,
): string | undefined {
  const reason = values[REASON_BLOCK]?.[REASON_INPUT]?.value?.trim();
  return reason ? reason : undefined;
}

/** The modal after its submission: what came of the decision. */
export function decidedView(text: string): SlackBlock {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: 'Holdpoint' },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [section(escapeMrkdwn(text))],
  };
}
