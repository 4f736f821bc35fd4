/**
 * What people answer to the assistant's `input` approvals, however a client wrapped
 * it: the web UI sends `{ item }` (and `{ items }`), the CLI `{ item }` or typed JSON,
 * an API caller anything documented in the app's README section.
 */

/** A person's answer to a prettified draft. */
export type ReviewAnswer =
  | { action: 'approve' }
  | { action: 'cancel' }
  | { action: 'correct'; draft: string };

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : { value };
}

/**
 * `{ action: 'approve' | 'cancel' }`, `{ action: 'correct', draft }`, `{ item: 'Approve' }`,
 * `{ confirmed }`, or any other text (a corrected draft). Nothing usable cancels.
 */
export function reviewAnswer(response: unknown): ReviewAnswer {
  const answer = record(response);
  const draft = [answer.draft, answer.text].find((v) => typeof v === 'string' && v.trim());
  if (typeof draft === 'string') return { action: 'correct', draft: draft.trim() };
  if (answer.confirmed === true) return { action: 'approve' };
  const said = [answer.action, answer.item, answer.value].find((v) => typeof v === 'string');
  const text = typeof said === 'string' ? said.trim() : '';
  if (/^(approve|approved|yes|y|ok|save)$/i.test(text)) return { action: 'approve' };
  if (!text || /^(cancel|no|n|stop)$/i.test(text)) return { action: 'cancel' };
  return { action: 'correct', draft: text };
}

/**
 * The fact ids a person picked: `{ picked: ['f1'] }`, `{ items: ['f1: …'] }`,
 * `{ item: 'f1, f3' }`, or text naming them; `none` (or nothing) picks none.
 */
export function pickedFactIds(response: unknown, known: string[]): string[] {
  const answer = record(response);
  const said = JSON.stringify([
    answer.picked,
    answer.items,
    answer.item,
    answer.value,
    answer.fact_ids,
  ]);
  if (/\ball\b/i.test(said) && !/\bf\d+\b/i.test(said)) return known;
  const ids = new Set((said.match(/\bf\d+\b/gi) ?? []).map((id) => id.toLowerCase()));
  return known.filter((id) => ids.has(id));
}
