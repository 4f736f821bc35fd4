import type { ApprovalRequest } from '../../core/types.js';
import { escapeHtml } from '../escape-html.js';

/** At most this much of the arguments is shown; the page says when it is cut. */
const MAX_ARGS_CHARS = 10_000;

/**
 * The decision pages' stylesheet, served beside them (`/decide/assets/decision.css`):
 * the server's CSP allows styles of its own origin only, never inline ones.
 */
export const DECISION_PAGE_CSS = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2430}
main{max-width:40rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002}
h1{font-size:1.3rem;margin-top:0}
dt{font-weight:600;margin-top:.6rem}dd{margin:0}
pre{background:#f0f2f5;padding:.6rem;overflow:auto;max-height:20rem;white-space:pre-wrap;word-break:break-word}
textarea{width:100%;box-sizing:border-box;font:inherit}
.actions{display:flex;gap:.8rem;margin-top:1rem}
button{font:inherit;padding:.5rem 1.2rem;border-radius:6px;border:1px solid #0003;cursor:pointer}
.approve{background:#1f7a3a;color:#fff}.reject{background:#b42318;color:#fff}
.note{color:#5b6472}
`;

/**
 * A whole page: a title, a heading and body HTML (already escaped by its makers). Its
 * referrer policy comes with it as a header (`same-origin`, decision-link-routes.ts).
 */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} · Holdpoint</title><link rel="stylesheet" href="assets/decision.css"></head>
<body><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`;
}

/** How long until `until`, in words a person reads at a glance. */
export function timeLeft(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 120) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} hours`;
  return `${Math.floor(hours / 24)} days`;
}

/** What the confirmation page shows of one approval. */
export interface ConfirmationView {
  appLabel: string;
  approval: ApprovalRequest;
  /** The approver the link is for. */
  approver: string;
  /** Milliseconds until the link (or the approval) stops working. */
  remainingMs: number;
}

/** The approval and a form to approve or reject it, posted to the page's own address. */
export function confirmationPage({
  appLabel,
  approval,
  approver,
  remainingMs,
}: ConfirmationView): string {
  const json = JSON.stringify(approval.args, null, 2) ?? '{}';
  const args = json.length > MAX_ARGS_CHARS ? `${json.slice(0, MAX_ARGS_CHARS)}\n… (cut)` : json;
  return page(
    `Approve ${approval.toolName}?`,
    `<dl>
<dt>App</dt><dd>${escapeHtml(appLabel)}</dd>
<dt>Tool</dt><dd>${escapeHtml(approval.toolName)}</dd>
<dt>Question</dt><dd>${escapeHtml(approval.hint)}</dd>
<dt>Arguments</dt><dd><pre>${escapeHtml(args)}</pre></dd>
<dt>For</dt><dd>${escapeHtml(approver)}</dd>
<dt>Time left</dt><dd>${escapeHtml(timeLeft(remainingMs))}</dd>
</dl>
<form method="post">
<label for="reason">Reason (optional), seen by the agent</label>
<textarea id="reason" name="reason" rows="3" maxlength="2000"></textarea>
<div class="actions">
<button class="approve" type="submit" name="decision" value="approve">Approve</button>
<button class="reject" type="submit" name="decision" value="reject">Reject</button>
</div>
</form>
<p class="note">This link works once, for ${escapeHtml(approver)} only.</p>`,
  );
}

/** A page that says one thing: what became of the link or the decision. */
export function messagePage(title: string, text: string): string {
  return page(title, `<p>${escapeHtml(text)}</p>`);
}

/** Asks the approver to sign in as `approver` first, with the sign-in link when there is one. */
export function signInPage(approver: string, loginUrl: string | undefined): string {
  const how = loginUrl
    ? `<p><a href="${escapeHtml(loginUrl)}">Sign in</a>, then come back to this link.</p>`
    : '<p>Sign in to Holdpoint in this browser, then open this link again.</p>';
  return page(
    'Sign in to decide',
    `<p>This approval asks its approver to sign in: this link is for ${escapeHtml(approver)}.</p>${how}`,
  );
}
