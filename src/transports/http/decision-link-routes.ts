import type { IncomingMessage } from 'node:http';
import { type Context, Hono } from 'hono';
import type { Logger } from 'pino';
import { z } from 'zod';
import { isHoldpointError, isStoreAway } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { type Principal, SYSTEM } from '../../core/principal.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type {
  DecisionLinks,
  LinkClaims,
  LinkRefusal,
} from '../../runtime/notify/decision-links.js';
import type { ApprovalLookup } from '../../runtime/queries/approval-lookup.js';
import { currentArgsHash, hasVoted, settlingDecision } from '../../session/decision/settlement.js';
import type { Identity } from '../auth/index.js';
import {
  confirmationPage,
  DECISION_PAGE_CSS,
  messagePage,
  signInPage,
} from './decision-link-page.js';
import { httpStatus } from './error-status.js';
import { retryAfterOf } from './limits/index.js';
import { limitBodies } from './request-bodies.js';

/** What the decision link routes need: the runtime, how callers sign in, the links' keys. */
export interface DecisionLinkRoutesOptions {
  runtime: HoldpointRuntime;
  identity: Identity;
  links: DecisionLinks;
  logger: Logger;
}

/** A form is two short fields; anything much larger is not one. */
const MAX_FORM_BYTES = 16 * 1024;

const decisionForm = z.strictObject({
  decision: z.enum(['approve', 'reject']),
  reason: z
    .string()
    .trim()
    .max(LIMITS.reasonChars)
    .transform((r) => (r === '' ? undefined : r))
    .optional(),
});

/**
 * The fields of a urlencoded form, or undefined (not a form) when one is repeated:
 * `decision=approve&decision=reject` is ambiguous, and no page of ours sends it.
 */
function formFields(body: string): Record<string, string> | undefined {
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(fields, name)) return undefined;
    fields[name] = value;
  }
  return fields;
}

/** A page and its status: what the routes answer with instead of throwing. */
interface Answer {
  status: 400 | 401 | 403 | 404 | 409 | 410 | 415 | 429;
  html: string;
}

const REFUSED: Record<LinkRefusal, Answer> = {
  malformed: {
    status: 400,
    html: messagePage('This link is not valid', 'The link is incomplete or damaged.'),
  },
  bad_signature: {
    status: 403,
    html: messagePage('This link is not valid', 'Holdpoint did not make this link.'),
  },
  expired: {
    status: 410,
    html: messagePage(
      'This link has expired',
      'Decide in Holdpoint itself, or ask for a new link.',
    ),
  },
};

const USED: Answer = {
  status: 410,
  html: messagePage('This link was already used', 'Each decision link works once.'),
};

const GONE: Answer = {
  status: 410,
  html: messagePage('Nothing to decide', 'This approval no longer waits for a decision.'),
};

/** A moment as people read it in a message: `2026-11-22 12:00 UTC`. */
const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** Why the approval cannot be decided through this link any more, if it cannot. */
function closed(
  { pause, approval }: ApprovalLookup,
  claims: LinkClaims,
  requestId: string,
): Answer | undefined {
  if (pause.decisions.some((d) => d.requestId === requestId)) return USED;
  if (pause.status === 'expired') {
    return {
      status: 410,
      html: messagePage('This approval expired', 'Nobody decided it in time.'),
    };
  }
  if (pause.status === 'cancelled') {
    return {
      status: 410,
      html: messagePage('This approval was cancelled', 'Its run was cancelled.'),
    };
  }
  const settled = settlingDecision(pause, approval);
  if (settled) {
    const verdict = settled.approved ? 'approved' : 'rejected';
    return {
      status: 409,
      html: messagePage(
        'Already decided',
        `${settled.decidedBy} ${verdict} this at ${when(settled.at)}.`,
      ),
    };
  }
  if (hasVoted(pause, approval.approvalId, claims.p)) {
    return {
      status: 409,
      html: messagePage('Already decided', 'You already decided this approval.'),
    };
  }
  if (pause.status !== 'pending') return GONE;
  if (approval.kind === 'input') {
    return {
      status: 409,
      html: messagePage(
        'Answer in Holdpoint',
        'This approval asks for an answer, not a yes or no.',
      ),
    };
  }
  // Someone edited the call since the link was sent: it would decide on what it no longer is.
  if (currentArgsHash(pause, approval) !== claims.h) return CHANGED;
  return undefined;
}

/**
 * A post that does not say which page sent it. Every browser sends `Origin` with a form's
 * post (same-origin too), so one without is not the link's page: curl, a script, a
 * scanner following the form. Refused: a decision comes from the page a person read.
 */
const NO_ORIGIN: Answer = {
  status: 403,
  html: messagePage(
    'Not from the link’s page',
    'A decision is taken with the form on the link’s page, in a browser, which names the page in the Origin header; this request names none (ORIGIN_NOT_ALLOWED). Open the link in a browser to decide.',
  ),
};

/** The call's arguments are no longer the ones the link was made for (and shows). */
const CHANGED: Answer = {
  status: 409,
  html: messagePage(
    'The request changed',
    'Its arguments were changed since this link was sent: decide it in Holdpoint, where the new ones are shown.',
  ),
};

/** What the approver is told when the store does not answer, by whether a write was sent. */
const STORE_AWAY = 'Holdpoint cannot reach its store. Try the link again in a moment.';
const DECISION_UNCONFIRMED =
  'Holdpoint could not confirm your decision. Try the link again in a moment: it shows whether it was recorded.';

/** What a refused decision becomes: a page saying why, or the error itself when it is not one. */
function refusalOf(error: unknown): Answer | undefined {
  if (!isHoldpointError(error)) return undefined;
  switch (error.code) {
    case 'FORBIDDEN':
      return { status: 403, html: messagePage('Not allowed', error.message) };
    case 'ALREADY_DECIDED':
    case 'ALREADY_VOTED':
      return { status: 409, html: messagePage('Already decided', error.message) };
    case 'ARGS_MISMATCH':
      return CHANGED;
    case 'APPROVAL_EXPIRED':
      return { status: 410, html: messagePage('This approval expired', error.message) };
    case 'PAUSE_CANCELLED':
    case 'APPROVAL_NOT_FOUND':
    case 'NO_PENDING_APPROVAL':
    case 'PAUSE_MISMATCH':
      return GONE;
    default:
      return undefined;
  }
}

/**
 * The public decision link pages, outside `/api` (mounted at `/decide`):
 * - `GET /decide/:token` never decides (mail scanners and link previews open links): it
 *   checks the token and shows the approval with an Approve / Reject form posting back;
 * - `POST /decide/:token` (a form, from this server's own page: it must carry `Origin`,
 *   which the guards hold to the server's own, and the token, which only the approver
 *   has, is the form's secret) decides as the link's approver (with the roles the
 *   directory gives them) through `decideApproval`, so the tool's policy is checked as
 *   for any decision, bound to the hash the link names, with `link:<nonce>` as its
 *   request id: a link decides once.
 * With the tool's `links: 'link+sign-in'`, both also ask the caller's identity (the
 * server's mode, as for `/api`) to be the link's approver. Every answer carries
 * `Referrer-Policy: same-origin` instead of the server's `no-referrer`: under that,
 * browsers send `Origin: null` with the form's post, which the guards refuse; the page's
 * address (and token) still never leaves for another site.
 */
export function decisionLinkRoutes({
  runtime,
  identity,
  links,
  logger,
}: DecisionLinkRoutesOptions): Hono {
  const app = new Hono();
  app.use(async (c, next) => {
    await next();
    c.res.headers.set('referrer-policy', 'same-origin');
  });

  const html = (c: Context, { status, html: body }: Answer | { status: 200; html: string }) => {
    c.header('cache-control', 'no-store');
    return c.html(body, status);
  };

  /** The signed-in caller, when it is the link's approver. */
  const signedInAs = async (c: Context, approver: string): Promise<Principal | undefined> => {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const principal = await identity
      .authenticate({ request: c.req.raw, remoteAddress: incoming?.socket?.remoteAddress })
      .catch(() => undefined);
    return principal?.id === approver ? principal : undefined;
  };

  const signIn = (c: Context, approver: string): Answer => {
    const mount = c.req.routePath.slice(0, -'/decide/:token'.length);
    const loginUrl = identity.loginRoutes
      ? `${mount}/auth/login?return_to=${encodeURIComponent(c.req.path)}`
      : undefined;
    return { status: 401, html: signInPage(approver, loginUrl) };
  };

  /**
   * The link's claims, the approval it names and who decides through it; or the page
   * saying why it cannot be used (now, or any more).
   */
  const open = async (
    c: Context,
  ): Promise<
    { refused: Answer } | { claims: LinkClaims; found: ApprovalLookup; principal: Principal }
  > => {
    const verified = links.verify(c.req.param('token') ?? '');
    if (!verified.ok) return { refused: REFUSED[verified.reason] };
    const { claims } = verified;
    const found = await runtime.operations.getApproval(claims.a, SYSTEM);
    if (!found) return { refused: GONE };
    const refused = closed(found, claims, links.requestIdOf(claims));
    if (refused) return { refused };
    let principal = links.principalOf(claims);
    if (found.approval.links === 'link+sign-in') {
      const signedIn = await signedInAs(c, claims.p);
      if (!signedIn) return { refused: signIn(c, claims.p) };
      principal = signedIn;
    }
    return { claims, found, principal };
  };

  app.get('/assets/decision.css', (c) =>
    c.body(DECISION_PAGE_CSS, 200, {
      'content-type': 'text/css; charset=utf-8',
      'cache-control': 'public, max-age=3600',
    }),
  );

  app.get('/:token', async (c) => {
    const opened = await open(c);
    if ('refused' in opened) return html(c, opened.refused);
    const { claims, found, principal } = opened;
    await runtime.countRequest(principal, 'requests');
    const appLabel = runtime.apps.find((a) => a.name === found.app)?.label ?? found.app;
    const until = Math.min(claims.e, found.pause.expiresAt, found.approval.expiresAt);
    return html(c, {
      status: 200,
      html: confirmationPage({
        appLabel,
        approval: found.approval,
        approver: claims.p,
        remainingMs: until - found.now,
      }),
    });
  });

  app.post('/:token', limitBodies(MAX_FORM_BYTES), async (c) => {
    // Another site's Origin was refused by the guards already (ORIGIN_NOT_ALLOWED).
    if (c.req.header('origin') === undefined) return html(c, NO_ORIGIN);
    const contentType = c.req.header('content-type')?.split(';', 1)[0]?.trim().toLowerCase();
    if (contentType !== 'application/x-www-form-urlencoded') {
      return html(c, {
        status: 415,
        html: messagePage('Not a decision', 'Decide with the form on the link’s page.'),
      });
    }
    const opened = await open(c);
    if ('refused' in opened) return html(c, opened.refused);
    const { claims, principal } = opened;
    const form = decisionForm.safeParse(formFields(await c.req.text()));
    if (!form.success) {
      return html(c, {
        status: 400,
        html: messagePage(
          'Not a decision',
          `Choose Approve or Reject; a reason has at most ${LIMITS.reasonChars} characters.`,
        ),
      });
    }
    await runtime.countRequest(principal, 'requests', 'runs');
    const approved = form.data.decision === 'approve';
    try {
      await runtime.operations.decideApproval(
        {
          approvalId: claims.a,
          approved,
          reason: form.data.reason,
          argsHash: claims.h,
          channel: 'link',
        },
        principal,
        undefined,
        links.requestIdOf(claims),
      );
    } catch (error) {
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      return html(c, refusal);
    }
    return html(c, {
      status: 200,
      html: messagePage(
        approved ? 'Approved' : 'Rejected',
        `Your decision is recorded, ${principal.id}. You may close this page.`,
      ),
    });
  });

  app.onError((error, c) => {
    if (isHoldpointError(error) && httpStatus(error) < 500) {
      const retryAfter = retryAfterOf(error);
      if (retryAfter !== undefined) c.header('retry-after', String(retryAfter));
      c.header('cache-control', 'no-store');
      const title = httpStatus(error) === 429 ? 'Not now' : 'Not a decision';
      return c.html(messagePage(title, error.message), httpStatus(error) as 400);
    }
    // The store not answering is no bug of the link: say so, as /api says 503, and let the
    // approver try again (after OUTCOME_UNKNOWN, opening the link shows what was recorded).
    if (isStoreAway(error)) {
      logger.warn({ err: error }, 'decision link: the store is unavailable');
      c.header('cache-control', 'no-store');
      const text = error.code === 'OUTCOME_UNKNOWN' ? DECISION_UNCONFIRMED : STORE_AWAY;
      return c.html(messagePage('Not now', text), 503);
    }
    logger.error({ err: error }, 'decision link failed');
    return c.html(messagePage('Something went wrong', 'Try the link again later.'), 500);
  });

  return app;
}
