import { Hono } from 'hono';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Clock } from '../../core/clock.js';
import { type ErrorCode, isHoldpointError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { NotificationDirectory } from '../../runtime/notify/notification-options.js';
import type { RunEvent } from '../../runtime/run-event.js';
import type { RunOutcome } from '../../runtime/run-outcome.js';
import type { SlackChannel } from '../notify/slack-channel.js';
import {
  APPROVE_ACTION,
  decidedView,
  parseButtonValue,
  REJECT_ACTION,
  REJECT_VIEW,
  rejectReasonView,
  type SlackBlock,
  submittedReason,
} from '../notify/slack-message.js';
import { slackPrincipalOf } from '../notify/slack-users.js';
import { httpStatus } from './error-status.js';
import { limitBodies } from './request-bodies.js';
import { verifySlackSignature } from './slack-signature.js';

/** Where Slack sends button presses (the app's Interactivity Request URL). */
export const SLACK_INTERACTIVITY_PATH = '/slack/interactivity';

/** What the endpoint needs beside the runtime: Slack's secret, and who Slack's users are. */
export interface SlackInteractivity {
  signingSecret: string;
  /** The principal a Slack user id acts as; undefined for a user nobody linked. */
  principalOf(slackUserId: string): Principal | undefined;
  /** Judges the signature's timestamp. */
  clock: Clock;
  /**
   * Opens a modal (`views.open`): Reject then asks for a reason first. Absent, Reject
   * rejects at once, without one.
   */
  openView?: (triggerId: string, view: SlackBlock) => Promise<void>;
}

/**
 * What the endpoint needs of the configured Slack channel: its signing secret, and who
 * Slack users are (its `users`, then the directory's people); `clock` is Holdpoint's.
 */
export function slackInteractivityOf(
  channel: SlackChannel,
  directory: NotificationDirectory | undefined,
  clock: Clock,
): SlackInteractivity {
  return {
    signingSecret: channel.signingSecret,
    clock,
    principalOf: (slackUserId) => slackPrincipalOf(slackUserId, channel.users, directory),
    openView: (triggerId, view) => channel.openView(triggerId, view),
  };
}

/** The endpoint's options: the runtime it decides through, and Slack's side. */
export interface SlackInteractivityOptions extends SlackInteractivity {
  runtime: HoldpointRuntime;
  logger: Logger;
}

// A button press carries the whole message it was pressed on: Holdpoint's are a few KiB.
const MAX_BODY_BYTES = 128 * 1024;

/** Slack answers a press after 3 s with an error: the answer leaves before that. */
const ANSWER_WITHIN_MS = 2_500;

/** The part of a `block_actions` payload Holdpoint reads; Slack sends much more. */
const blockActions = z.object({
  type: z.literal('block_actions'),
  user: z.object({ id: z.string().min(1).max(100) }),
  response_url: z.url({ protocol: /^https?$/ }).optional(),
  trigger_id: z.string().min(1).max(255).optional(),
  actions: z
    .array(z.object({ action_id: z.string().max(255), value: z.string().max(2000).optional() }))
    .min(1),
});

/** The Reject modal submitted: who, the approval and hash it was opened on, the reason typed. */
const viewSubmission = z.object({
  type: z.literal('view_submission'),
  user: z.object({ id: z.string().min(1).max(100) }),
  view: z.object({
    callback_id: z.literal(REJECT_VIEW),
    private_metadata: z.string().max(3000),
    state: z.object({
      values: z.record(
        z.string(),
        z.record(z.string(), z.looseObject({ value: z.string().nullish() })),
      ),
    }),
  }),
});

/** What the endpoint reads: a button press, or the Reject modal submitted. */
const interaction = z.discriminatedUnion('type', [blockActions, viewSubmission]);

const NOT_LINKED = 'Your Slack account is not linked to Holdpoint, so it cannot decide approvals.';

/** What a refusal tells the person who pressed, by code; others get the code and message. */
const REFUSALS: Partial<Record<ErrorCode, string>> = {
  FORBIDDEN:
    'You may not decide this approval: its policy does not allow you. Nothing was decided.',
  ALREADY_DECIDED: 'This approval was already decided.',
  ALREADY_VOTED: 'You already decided this approval.',
  APPROVAL_EXPIRED: 'This approval expired before your decision: nothing was decided.',
  ARGS_MISMATCH: 'The arguments changed since this message was sent: nothing was decided.',
  APPROVAL_NOT_FOUND: 'Holdpoint knows no such approval (it may have ended long ago).',
  PAUSE_CANCELLED: 'This run was cancelled: nothing was decided.',
  NO_PENDING_APPROVAL: 'Nothing waits for a decision here any more.',
  RATE_LIMITED: 'Too many requests from you just now: try again in a minute.',
};

function refusalText(error: unknown): string {
  if (!isHoldpointError(error)) return 'Holdpoint could not record your decision: try again.';
  return (
    REFUSALS[error.code] ??
    `Holdpoint did not record your decision (${error.code}): ${error.message}`
  );
}

function decidedText(approved: boolean, outcome?: RunOutcome): string {
  const verb = approved ? 'approved' : 'rejected';
  if (outcome?.status === 'completed') return `You ${verb} it; the run completed.`;
  return `You ${verb} it.`;
}

/**
 * Decides, and says so as soon as the decision is stored: its resumed run goes on
 * without holding Slack's request (a run may take minutes; the message is rewritten by
 * the `decided` delivery anyway). The first event a decision's run emits comes after the
 * decision's commit; a decision that resumes nothing answers with its outcome.
 */
function decideAndTell(
  options: SlackInteractivityOptions,
  input: { approvalId: string; argsHash: string; approved: boolean; reason?: string },
  by: Principal,
): Promise<string> {
  const { runtime, logger } = options;
  return new Promise((resolve) => {
    let told = false;
    // Not an ordering guess: Slack shows its own error past 3 s, so this answer goes first.
    const late = setTimeout(
      () => tell('Holdpoint is recording your decision; this message changes once it is.'),
      ANSWER_WITHIN_MS,
    );
    function tell(text: string) {
      if (told) return;
      told = true;
      clearTimeout(late);
      resolve(text);
    }
    const sink = (event: RunEvent) => {
      if (event.type === 'run-started' || event.type === 'decided') {
        tell(decidedText(input.approved));
      }
    };
    runtime.operations
      .decideApproval({ ...input, channel: 'slack' }, by, sink)
      .then((outcome) => tell(decidedText(input.approved, outcome)))
      .catch((error: unknown) => {
        if (told) {
          // The decision stands; what failed is the run it resumed (recorded as failed).
          logger.warn(
            { err: error, approval_id: input.approvalId },
            'run resumed from Slack failed',
          );
          return;
        }
        if (!isHoldpointError(error) || httpStatus(error) >= 500) {
          logger.error({ err: error, approval_id: input.approvalId }, 'Slack decision failed');
        }
        tell(refusalText(error));
      });
  });
}

/**
 * Shows `text` to the person who pressed, and no one else: in the answer, and through the
 * payload's `response_url` (Slack shows a `block_actions` answer only from there).
 */
function ephemeral(responseUrl: string | undefined, text: string, logger: Logger) {
  const body = { response_type: 'ephemeral', replace_original: false, text };
  if (responseUrl) {
    fetch(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    }).catch((error: unknown) => logger.warn({ err: error }, 'Slack response_url failed'));
  }
  return body;
}

/**
 * The Reject modal submitted: rejects the approval and hash it was opened on, with the
 * reason typed (if any), as the person who submitted it. Slack's answer updates the modal
 * to say what came of it; a reason over the limit is shown on its field instead.
 */
async function submitRejection(
  options: SlackInteractivityOptions,
  payload: z.infer<typeof viewSubmission>,
): Promise<Record<string, unknown>> {
  const button = parseButtonValue(payload.view.private_metadata);
  const principal = options.principalOf(payload.user.id);
  const answer = (text: string) => ({ response_action: 'update', view: decidedView(text) });
  if (!button) return answer(refusalText(undefined));
  if (!principal) return answer(NOT_LINKED);
  const reason = submittedReason(payload.view.state.values);
  try {
    await options.runtime.countRequest(principal, 'requests', 'runs');
    return answer(
      await decideAndTell(
        options,
        { ...button, approved: false, ...(reason === undefined ? {} : { reason }) },
        principal,
      ),
    );
  } catch (error) {
    return answer(refusalText(error));
  }
}

/**
 * `POST /slack/interactivity`: Approve / Reject pressed in a Slack message. Public (Slack
 * signs it instead of a caller proving an identity): refused 401 unless Slack's signature
 * over the raw body holds and its timestamp is within five minutes. The Slack user acts
 * as the principal it is linked to, through `decideApproval` — the same policy checks as
 * every decision, recorded with `channel: 'slack'`. Reject opens a modal asking for a
 * reason (when the endpoint can open views); its submission decides. Every answer Slack
 * gets is 200 with a text for the person: a refusal too, never a 500.
 */
export function slackInteractivityRoutes(options: SlackInteractivityOptions): Hono {
  const { signingSecret, clock, logger } = options;
  const app = new Hono();
  app.post(SLACK_INTERACTIVITY_PATH, limitBodies(MAX_BODY_BYTES), async (c) => {
    const rawBody = await c.req.text();
    const signed = verifySlackSignature(
      signingSecret,
      {
        timestamp: c.req.header('x-slack-request-timestamp'),
        signature: c.req.header('x-slack-signature'),
      },
      rawBody,
      clock.now(),
    );
    if (!signed) {
      return c.json(
        { error: { code: 'UNAUTHENTICATED', message: 'Not signed by Slack, or too old.' } },
        401,
      );
    }
    let payload: z.infer<typeof interaction>;
    try {
      const parsed = interaction.safeParse(
        JSON.parse(new URLSearchParams(rawBody).get('payload') ?? ''),
      );
      // Other interactions (shortcuts, other apps' buttons) are none of Holdpoint's business.
      if (!parsed.success) return c.body(null, 200);
      payload = parsed.data;
    } catch {
      return c.body(null, 200);
    }
    if (payload.type === 'view_submission') {
      return c.json(await submitRejection(options, payload));
    }
    const action = payload.actions.find(
      (a) => a.action_id === APPROVE_ACTION || a.action_id === REJECT_ACTION,
    );
    const button = action?.value ? parseButtonValue(action.value) : undefined;
    if (!action || !button) return c.body(null, 200);
    const principal = options.principalOf(payload.user.id);
    if (!principal) {
      logger.info({ slack_user: payload.user.id }, 'Slack user not linked to a principal');
      return c.json(ephemeral(payload.response_url, NOT_LINKED, logger));
    }
    const approved = action.action_id === APPROVE_ACTION;
    // Reject asks for the reason first: its modal's submission decides.
    if (!approved && options.openView && payload.trigger_id) {
      try {
        await options.openView(
          payload.trigger_id,
          rejectReasonView(button.approvalId, button.argsHash),
        );
        return c.body(null, 200);
      } catch (error) {
        logger.warn({ err: error }, 'Slack views.open failed: rejecting without a reason');
      }
    }
    let text: string;
    try {
      await options.runtime.countRequest(principal, 'requests', 'runs');
      text = await decideAndTell(options, { ...button, approved }, principal);
    } catch (error) {
      text = refusalText(error);
    }
    return c.json(ephemeral(payload.response_url, text, logger));
  });
  return app;
}
