import type { ApiDecision } from '../api/api-types';

/** How a decision channel reads in a sentence; an unknown one as it is named. */
const CHANNELS: Record<string, string> = {
  slack: 'Slack',
  email: 'email',
  'email-link': 'an email link',
  link: 'a decision link',
};

/**
 * Where a decision came from, as words after who made it: ` via Slack`, ` for ann` (an
 * out-of-office delegate), both, or nothing for one made in the API or this UI.
 */
export function decisionSource(decision: ApiDecision): string {
  const via = decision.channel ? ` via ${CHANNELS[decision.channel] ?? decision.channel}` : '';
  const forWhom = decision.on_behalf_of ? ` for ${decision.on_behalf_of}` : '';
  return `${forWhom}${via}`;
}
