import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One Web API call as the fake received it: the method, its arguments (JSON fields decoded). */
export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  /** What it answered: `ok`, or Slack's error code. */
  answer: string;
}

/** A message as the fake keeps it, by `<channel>:<ts>`. */
export interface SlackMessageState {
  text?: string;
  blocks?: Array<Record<string, unknown>>;
  thread_ts?: string;
}

/** What `response_url` received: the texts shown to the person who pressed. */
export interface SlackResponse {
  id: string;
  body: Record<string, unknown>;
}

// Arguments Slack's SDK sends JSON-encoded inside its form body.
const JSON_FIELDS = new Set(['blocks', 'attachments', 'metadata', 'view']);

/**
 * Test support: a stand-in for Slack's Web API on 127.0.0.1, answering as Slack does —
 * `chat.postMessage` (a user id posts to the app's direct message with that user, `D…`),
 * `chat.update`, `views.open` (a modal for an interaction's `trigger_id`; `expired_trigger_id`
 * for one named in `expiredTriggers`) — only with `Authorization: Bearer <token>`
 * (`invalid_auth` otherwise);
 * every call recorded. Also the `response_url`s of interactivity payloads.
 */
export class FakeSlack {
  readonly calls: SlackCall[] = [];
  readonly messages = new Map<string, SlackMessageState>();
  readonly responses: SlackResponse[] = [];
  /** Channels Slack does not know (`channel_not_found`). */
  readonly unknownChannels = new Set<string>();
  /** Trigger ids Slack no longer accepts (`expired_trigger_id`). */
  readonly expiredTriggers = new Set<string>();
  private failures: Array<{ status: number; error?: string }> = [];
  private waiters: Array<{ until: () => boolean; resolve: () => void }> = [];
  private server?: Server;
  private counter = 0;
  url = '';

  constructor(readonly token: string) {}

  /** The address to give `slackChannel({ apiUrl })`. */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  /** A `response_url` to put into an interactivity payload. */
  responseUrl(id: string): string {
    return `${this.url}/actions/${id}`;
  }

  /** The next API call fails: HTTP `status` (429 with `Retry-After`), or 200 with `{ok:false, error}`. */
  failNext(status: number, error?: string): void {
    this.failures.push({ status, error });
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch(() => {
        response.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Resolves once the calls received make `until` true (at once if they already do). */
  waitFor(until: (calls: SlackCall[]) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const waiter = { until: () => until(this.calls), resolve };
      if (waiter.until()) resolve();
      else this.waiters.push(waiter);
    });
  }

  private record(call: SlackCall): void {
    this.calls.push(call);
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.until()) return true;
      waiter.resolve();
      return false;
    });
  }

  /** The calls of one method. */
  callsOf(method: string): SlackCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = request.url ?? '';
    if (path.startsWith('/actions/')) {
      this.responses.push({ id: path.slice('/actions/'.length), body: JSON.parse(raw) });
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    const method = path.replace(/^\/api\//, '');
    const args: Record<string, unknown> = {};
    for (const [key, value] of new URLSearchParams(raw)) {
      args[key] = JSON_FIELDS.has(key) ? JSON.parse(value) : value;
    }
    const failure = this.failures.shift();
    if (failure && failure.status !== 200) {
      this.record({ method, args, answer: `http_${failure.status}` });
      const headers = failure.status === 429 ? { 'retry-after': '1' } : {};
      response.writeHead(failure.status, headers).end();
      return;
    }
    const answer = failure?.error
      ? { ok: false, error: failure.error }
      : this.answer(method, args, request.headers.authorization);
    this.record({ method, args, answer: answer.ok ? 'ok' : String(answer.error) });
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  }

  private answer(
    method: string,
    args: Record<string, unknown>,
    authorization: string | undefined,
  ): Record<string, unknown> {
    if (!authorization) return { ok: false, error: 'not_authed' };
    if (authorization !== `Bearer ${this.token}`) return { ok: false, error: 'invalid_auth' };
    if (method === 'views.open') {
      const trigger = String(args.trigger_id ?? '');
      if (!trigger) return { ok: false, error: 'invalid_arguments' };
      if (this.expiredTriggers.has(trigger)) return { ok: false, error: 'expired_trigger_id' };
      this.counter += 1;
      return { ok: true, view: { ...(args.view as object), id: `V${this.counter}` } };
    }
    const channel = String(args.channel ?? '');
    if (!/^[CGDUW][A-Z0-9]+$/.test(channel) || this.unknownChannels.has(channel)) {
      return { ok: false, error: 'channel_not_found' };
    }
    // Posting to a user id posts to the app's direct message with that user.
    const conversation = /^[UW]/.test(channel) ? `D${channel.slice(1)}` : channel;
    const state = {
      text: args.text as string | undefined,
      blocks: args.blocks as SlackMessageState['blocks'],
    };
    if (method === 'chat.postMessage') {
      const thread = args.thread_ts as string | undefined;
      if (thread && !this.messages.has(`${conversation}:${thread}`)) {
        return { ok: false, error: 'thread_not_found' };
      }
      this.counter += 1;
      const ts = `1764000000.${String(this.counter).padStart(6, '0')}`;
      this.messages.set(`${conversation}:${ts}`, { ...state, thread_ts: thread });
      return { ok: true, channel: conversation, ts, message: { ...state, ts } };
    }
    if (method === 'chat.update') {
      const key = `${conversation}:${String(args.ts)}`;
      const existing = this.messages.get(key);
      if (!existing) return { ok: false, error: 'message_not_found' };
      this.messages.set(key, { ...existing, ...state });
      return { ok: true, channel: conversation, ts: args.ts, text: state.text };
    }
    return { ok: false, error: 'unknown_method' };
  }
}
