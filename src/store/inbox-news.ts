import { z } from 'zod';
import type { Pause } from '../core/types.js';
import { pauseAudiences } from '../session/decision/approvers.js';
import type { SessionSnapshot, SessionWrites } from './store.js';

/**
 * The relay channel that tells inboxes something changed: published after each commit
 * that changes a pause's pending state (a pause stored, a decision or vote recorded, an
 * approver added, the pause expired or cancelled). A colon is never part of a session id,
 * so no session's channel is named this.
 */
export const INBOX_CHANNEL = 'inbox:';

/**
 * What an inbox hears: whose inbox may have changed, as the audiences of the pause
 * before and after the commit (`user:<id>`, `role:<name>`, see pauseAudiences). A
 * listener re-reads its inbox when one of its own audiences is among them; the message
 * carries no approval, only that the store has news. `delegation`: someone left their
 * approvals to the audience (or stopped): it reads again whose news is its own too.
 */
export const inboxNewsSchema = z.strictObject({
  audiences: z.array(z.string()),
  delegation: z.literal(true).optional(),
});
export type InboxNews = z.infer<typeof inboxNewsSchema>;

/** Whether `after` differs from `before` in what an inbox shows or who it shows it to. */
function pendingChanged(before: Pause | undefined, after: Pause): boolean {
  if (before?.status !== after.status) return true;
  if (before.decisions.length !== after.decisions.length) return true;
  const was = pauseAudiences(before);
  const now = pauseAudiences(after);
  return was.length !== now.length || now.some((audience) => !was.includes(audience));
}

/**
 * The inbox news of a commit of `writes` over `before`: undefined unless it wrote a pause
 * that was or is pending and changed it (a lease renewal or checkpoint is no news).
 */
export function inboxNews(
  before: SessionSnapshot | undefined,
  writes: SessionWrites,
): InboxNews | undefined {
  const audiences = new Set<string>();
  for (const pause of writes.pauses ?? []) {
    const was = before?.pause?.pauseId === pause.pauseId ? before.pause : undefined;
    if (pause.status !== 'pending' && was?.status !== 'pending') continue;
    if (!pendingChanged(was, pause)) continue;
    for (const audience of pauseAudiences(pause)) audiences.add(audience);
    for (const audience of was ? pauseAudiences(was) : []) audiences.add(audience);
  }
  return audiences.size > 0 ? { audiences: [...audiences] } : undefined;
}
