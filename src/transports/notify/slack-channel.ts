import {
  type FetchFunction,
  LogLevel,
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
  WebClient,
} from '@slack/web-api';
import type { ApprovalEventType } from '../../core/approval-event.js';
import { type Clock, systemClock } from '../../core/clock.js';
import {
  type DeliveryContext,
  DeliveryFailure,
  type NotificationChannel,
} from '../../runtime/notify/channel.js';
import type { DeliveryRecord } from '../../store/outbox.js';
import {
  eventLine,
  outcomeMessage,
  requestMessage,
  type SlackBlock,
  type SlackMessage,
} from './slack-message.js';
import type { SlackUsers } from './slack-users.js';

/** How Holdpoint reaches Slack, and who Slack's users are in Holdpoint. */
export interface SlackChannelOptions {
  /** The app's bot token (`xoxb-…`), with the `chat:write` scope. */
  token: string;
  /** The app's signing secret: button presses at `/slack/interactivity` are checked with it. */
  signingSecret: string;
  /** The Web API's address. Default `https://slack.com/api/` (a stand-in's, for tests). */
  apiUrl?: string;
  /**
   * Slack user id → principal (`{ U0123: 'alice' }`, or `{ U0123: { id: 'alice', roles:
   * ['finance'] } }`). Users the directory gives a Slack address are known too.
   */
  users?: SlackUsers;
  /** Time as the messages' "time left" sees it. */
  clock?: Clock;
}

/** The Slack channel: the notification channel, and what its interactivity endpoint needs. */
export interface SlackChannel extends NotificationChannel {
  readonly name: 'slack';
  readonly signingSecret: string;
  readonly users: SlackUsers;
  /**
   * Opens a modal for the person whose interaction gave `triggerId` (`views.open`; Slack
   * accepts a trigger for 3 s). Rejects when Slack refuses it.
   */
  openView(triggerId: string, view: SlackBlock): Promise<void>;
}

/** Whether `channel` is a Slack channel (the server mounts its interactivity endpoint then). */
export function isSlackChannel(channel: NotificationChannel): channel is SlackChannel {
  return channel.name === 'slack' && typeof (channel as SlackChannel).signingSecret === 'string';
}

/** Slack's errors worth another attempt: its own trouble, not ours. */
const PASSING_ERRORS = new Set([
  'ratelimited',
  'rate_limited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

/** A Web API failure as a delivery failure: retried unless Slack refused the call itself. */
function failureOf(error: unknown): DeliveryFailure {
  if (error instanceof WebAPIPlatformError) {
    const code = error.data.error;
    return new DeliveryFailure(`Slack refused: ${code}`, PASSING_ERRORS.has(code));
  }
  if (error instanceof WebAPIRateLimitedError) {
    return new DeliveryFailure(`Slack rate limited (retry after ${error.retryAfter} s)`);
  }
  if (error instanceof WebAPIHTTPError) {
    return new DeliveryFailure(`Slack answered HTTP ${error.statusCode}`, error.statusCode >= 500);
  }
  if (error instanceof WebAPIRequestError) {
    return new DeliveryFailure(`Slack unreachable: ${error.original.message}`);
  }
  return new DeliveryFailure(error instanceof Error ? error.message : String(error));
}

/** `<channel>:<ts>` of a message, as deliveries keep it. */
function refOf(channel: string | undefined, ts: string | undefined): string | undefined {
  return channel && ts ? `${channel}:${ts}` : undefined;
}

/** The channel and ts of a message from its ref (a ts holds no colon). */
function messageOf(ref: string): { channel: string; ts: string } | undefined {
  const colon = ref.lastIndexOf(':');
  return colon > 0 ? { channel: ref.slice(0, colon), ts: ref.slice(colon + 1) } : undefined;
}

/** The events whose delivery may have posted the whole message (with buttons). */
const MESSAGE_EVENTS: ApprovalEventType[] = ['requested', 'escalated', 'delegated', 'reminded'];

/**
 * The message this recipient was sent about the approval, to thread under or update:
 * the request, or whichever later event first reached them (someone an escalation or a
 * hand-over added; someone whose request was never delivered). Replies in a thread keep
 * no ref, so a ref is always a whole message.
 */
async function earlierMessage(ctx: DeliveryContext) {
  for (const type of MESSAGE_EVENTS) {
    const ref = (await ctx.earlier(type))?.ref;
    const message = ref ? messageOf(ref) : undefined;
    if (message) return message;
  }
  return undefined;
}

/**
 * Slack through its Web API (`@slack/web-api`): an approval's request as a message with
 * Approve / Reject buttons to each recipient's Slack user (a direct message) or channel
 * (a role's); reminders, escalations and hand-overs in its thread; once decided, expired
 * or cancelled, the message rewritten to say so, buttons gone. Button presses come back
 * at `/slack/interactivity` (transports/http/slack-interactivity.ts).
 */
export function slackChannel(options: SlackChannelOptions): SlackChannel {
  const clock = options.clock ?? systemClock;
  // The outbox retries: the client never does, and a rate limit is an answer, not a wait.
  const clientFor = (signal: AbortSignal) =>
    new WebClient(options.token, {
      slackApiUrl: options.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      logLevel: LogLevel.ERROR,
      fetch: ((url, init) => fetch(url, { ...init, signal })) as FetchFunction,
    });

  async function post(client: WebClient, channel: string, message: SlackMessage) {
    const answer = await client.chat.postMessage({ channel, ...message });
    return { ref: refOf(answer.channel, answer.ts) };
  }

  async function send(delivery: DeliveryRecord, ctx: DeliveryContext) {
    const address = ctx.recipient.address?.slack;
    if (!address) {
      throw new DeliveryFailure(`${ctx.recipient.audience} has no Slack address`, false);
    }
    const { event } = delivery;
    const view = {
      now: clock.now(),
      approvalUrl: ctx.approvalUrl(event.approval.approval_id),
      onBehalfOf: ctx.recipient.onBehalfOf,
      mayDecide: ctx.recipientMayDecide,
    };
    const client = clientFor(ctx.signal);
    try {
      if (event.type === 'requested')
        return await post(client, address, requestMessage(event, view));
      const earlier = await earlierMessage(ctx);
      switch (event.type) {
        case 'reminded':
        case 'escalated':
        case 'delegated': {
          // Someone newly asked has no message yet: they get the whole request.
          if (!earlier) return await post(client, address, requestMessage(event, view));
          const text = eventLine(event);
          await client.chat.postMessage({ channel: earlier.channel, thread_ts: earlier.ts, text });
          return {};
        }
        default: {
          const message = outcomeMessage(event, view);
          if (!earlier) return await post(client, address, message);
          await client.chat.update({ channel: earlier.channel, ts: earlier.ts, ...message });
          return {};
        }
      }
    } catch (error) {
      throw failureOf(error);
    }
  }

  return {
    name: 'slack',
    audience: 'people',
    signingSecret: options.signingSecret,
    users: options.users ?? {},
    send,
    openView: async (triggerId, view) => {
      // Slack's trigger lasts 3 s: a slower answer cannot open the modal anyway.
      await clientFor(AbortSignal.timeout(2_500)).views.open({
        trigger_id: triggerId,
        view: view as never,
      });
    },
  };
}
