import type { FinishReason, UIMessageChunk } from 'ai';
import type { Logger } from 'pino';
import { isHoldpointError } from '../../core/errors.js';
import { type Principal, SYSTEM } from '../../core/principal.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { RunEvent } from '../../runtime/run-event.js';
import type { Unsubscribe } from '../../store/run-relay.js';
import type { PostedIntent } from './chat-intent.js';
import type { ChatMessageMetadata } from './chat-metadata.js';
import type { ChatRequestBody } from './chat-request.js';
import { errorText, runChatTurn } from './chat-stream.js';
import { placedIntent } from './placed-intent.js';
import { UIChunkMapper } from './ui-chunk-mapper.js';

type Chunk = UIMessageChunk<ChatMessageMetadata>;

export interface ContinuousStreamOptions {
  runtime: HoldpointRuntime;
  logger: Logger;
  /** Receives every chunk, in order; `end` closes the stream. */
  write(chunk: Chunk): void;
  end(): void;
}

/**
 * One chat turn in continuous mode: the stream stays open at an approval request
 * and carries the decision, the tool output and the reply when they come —
 * whoever decides, on whichever instance — then ends once. Everything it shows
 * comes through the store's relay, so it is the same whether this process or
 * another one runs the resumed segment. A tool's timeout policy decides what a
 * long wait becomes: a denial ("timed out") or a parked pause (the stream ends,
 * the pause stays stored).
 */
export class ContinuousStream {
  private readonly mapper = new UIChunkMapper('continuous');
  private unsubscribe?: Unsubscribe;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private app?: string;
  /** Who the stream is for: what it reads, it reads as them. */
  private caller?: Principal;
  /** The session the stream follows, once known. */
  private session?: string;
  /** Approvals this stream asked for (`tool-approval-request`) whose decision it has not carried. */
  private readonly waiting = new Set<string>();

  constructor(private readonly options: ContinuousStreamOptions) {}

  /** The session this stream follows (known once `start` has it), while it is open. */
  get sessionId(): string | undefined {
    return this.closed ? undefined : this.session;
  }

  /**
   * Whether this stream, open, waits for a decision of `approvalId`: it streamed its
   * request and not yet its decision, so the run that decision resumes goes on here.
   */
  waitsFor(approvalId: string): boolean {
    return !this.closed && this.waiting.has(approvalId);
  }

  /**
   * Runs the turn and streams it until the run completes, fails, ends or parks. Answers
   * known only by their approvals are first placed in their session.
   */
  async start(
    body: ChatRequestBody,
    posted: PostedIntent,
    caller: Principal,
    messageId: string,
  ): Promise<void> {
    const { runtime } = this.options;
    this.caller = caller;
    this.options.write({ type: 'start', messageId });
    try {
      const intent = await placedIntent(runtime, posted, caller);
      const sessionId =
        intent.sessionId ?? (await runtime.operations.createSession({ app: body.app }, caller));
      this.session = sessionId;
      // Watch before the run starts, so not one of its events is missed.
      this.unsubscribe = await runtime.operations.watchSession(sessionId, caller, (event) =>
        this.onEvent(event),
      );
      if (this.closed) return this.cleanup();
      const turn = intent.kind === 'message' ? { ...intent, sessionId } : intent;
      await runChatTurn({ runtime, body, intent: turn, caller });
    } catch (error) {
      // A run that failed reports itself through the relay too: whichever comes first
      // ends the stream, once. An agent's failure is left to the relay, with its status.
      if (this.closed || isHoldpointError(error, 'RUN_FAILED')) return;
      this.options.write({ type: 'error', errorText: errorText(error) });
      this.finish('error');
    }
  }

  /** The client went away or aborted: stop streaming; the pause stays stored. */
  abort(): void {
    this.closed = true;
    this.cleanup();
  }

  private onEvent(event: RunEvent): void {
    if (this.closed) return;
    if (event.type === 'run-started') this.app = event.app;
    // Known before the request is written, so an answer to it finds this stream.
    if (event.type === 'approval-requested') this.waiting.add(event.approval.approvalId);
    if (event.type === 'decided') {
      for (const decision of event.decisions) this.waiting.delete(decision.approvalId);
    }
    for (const chunk of this.mapper.map(event)) this.options.write(chunk);
    if (event.type === 'failed') this.finish('error');
    if (event.type === 'ended') this.finish('other');
    if (event.type !== 'outcome') return;
    if (event.outcome.status === 'completed') {
      this.finish('stop');
      return;
    }
    this.armTimeout(event.outcome.approvals.map((a) => ({ ...a, app: event.outcome.app })));
  }

  private armTimeout(approvals: { app: string; toolName: string; createdAt: number }[]): void {
    clearTimeout(this.timer);
    const deadlines = approvals.map(
      (a) =>
        a.createdAt + this.options.runtime.approvalPolicy(a.app, a.toolName).timeoutSeconds * 1000,
    );
    if (deadlines.length === 0) return;
    const wait = Math.max(0, Math.min(...deadlines) - Date.now());
    this.timer = setTimeout(() => {
      this.onTimeout().catch((error: unknown) =>
        this.options.logger.warn({ err: error }, 'approval timeout handling failed'),
      );
    }, wait);
  }

  /** Applies each timed-out approval's policy: deny it, or park the run and end the stream. */
  private async onTimeout(): Promise<void> {
    const { runtime } = this.options;
    const sessionId = this.mapper.lastMetadata?.sessionId;
    if (this.closed || !sessionId || !this.app || !this.caller) return;
    const view = await runtime.operations.getSession(sessionId, this.caller);
    const now = Date.now();
    const due = view.pendingApprovals.filter(
      (a) =>
        a.createdAt + runtime.approvalPolicy(view.meta.app, a.toolName).timeoutSeconds * 1000 <=
        now,
    );
    const deny = due.filter(
      (a) => runtime.approvalPolicy(view.meta.app, a.toolName).onTimeout === 'deny',
    );
    if (deny.length > 0) {
      try {
        // Events of the resulting segment arrive through the relay like any other.
        await runtime.operations.resumeRun(
          {
            sessionId,
            decisions: deny.map((a) => ({
              approvalId: a.approvalId,
              approved: false,
              reason: 'timed out',
            })),
          },
          SYSTEM,
        );
      } catch (error) {
        // Someone decided in the meantime: their decision stands.
        if (!isHoldpointError(error)) throw error;
      }
    }
    if (due.length > deny.length && !this.closed) this.finish('tool-calls');
    else if (view.pendingApprovals.length > due.length) {
      this.armTimeout(
        view.pendingApprovals
          .filter((a) => !due.includes(a))
          .map((a) => ({ ...a, app: view.meta.app })),
      );
    }
  }

  private finish(finishReason: FinishReason): void {
    if (this.closed) return;
    const metadata = this.mapper.lastMetadata;
    this.options.write({
      type: 'finish',
      finishReason,
      ...(metadata ? { messageMetadata: metadata } : {}),
    });
    this.closed = true;
    this.cleanup();
    this.options.end();
  }

  private cleanup(): void {
    clearTimeout(this.timer);
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    unsubscribe?.().catch(() => {});
  }
}
