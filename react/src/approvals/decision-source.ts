import type { ApiDecision } from '../client/api-types.js';

/** How a decision channel reads in a sentence; an unknown one as it is named. */
const CHANNELS: Record<string, string> = {
  slack: 'Slack',
  email: 'email',
  'email-link': 'an email link',
  link: 'a decision link',
  'ag-ui': 'AG-UI',
  a2a: 'A2A',
};

/** The chat streams' channel: this UI's own door, like the API's (which names none). */
const OWN_CHANNEL = 'chat';

/**
 * Where a decision came from, as words after who made it: ` via Slack`, ` for ann` (an
 * out-of-office delegate), both, or nothing for one made in the API or this UI.
 */
export function decisionSource(decision: ApiDecision): string {
  const { channel } = decision;
  const via = channel && channel !== OWN_CHANNEL ? ` via ${CHANNELS[channel] ?? channel}` : '';
  const forWhom = decision.on_behalf_of ? ` for ${decision.on_behalf_of}` : '';
  return `${forWhom}${via}`;
}

/**
 * What a person did, as a verb: `Answered`/`Declined` for an input; for a confirmation
 * `Approved with changes` (an edit), `Answered in its place` (a response), `Approved` or
 * `Rejected`.
 */
export function decisionVerb(decision: ApiDecision, input: boolean): string {
  if (input) return decision.approved ? 'Answered' : 'Declined';
  if (!decision.approved) return 'Rejected';
  if (decision.edited_args !== undefined || decision.edited_args_hash !== undefined) {
    return 'Approved with changes';
  }
  if (decision.response !== undefined || decision.responded) return 'Answered in its place';
  return 'Approved';
}
