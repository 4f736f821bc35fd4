import { randomUUID } from 'node:crypto';
import { createUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { HoldpointError, isHoldpointError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { RunEventSink } from '../../runtime/run-event.js';
import type { RunOutcome } from '../../runtime/run-outcome.js';
import { answersIn, type ChatIntent, type PostedIntent } from './chat-intent.js';
import type { ChatMessageMetadata } from './chat-metadata.js';
import type { ChatRequestBody } from './chat-request.js';
import { placedIntent } from './placed-intent.js';
import { type ApprovalMode, UIChunkMapper } from './ui-chunk-mapper.js';

export type HoldpointUIMessage = UIMessage<ChatMessageMetadata>;

export interface ChatTurn {
  runtime: HoldpointRuntime;
  body: ChatRequestBody;
  /** What the body asks for; answers known only by their approvals are placed first. */
  intent: PostedIntent;
  /** Who sends the turn, as its identity proved. */
  caller: Principal;
  mode: ApprovalMode;
}

/** Where the decisions the chat streams (the AI SDK's) carry say they came from (their audit lines name it). */
export const AI_SDK_CHANNEL = 'chat';

/** How an error reads in an `error` chunk: its stable code first. */
export function errorText(error: unknown): string {
  return isHoldpointError(error) ? `${error.code}: ${error.message}` : 'INTERNAL: Internal error.';
}

/** Starts the run a user message asks for, or resumes the one the answers decide. */
export async function runChatTurn(
  { runtime, body, intent, caller }: Omit<ChatTurn, 'mode' | 'intent'> & { intent: ChatIntent },
  emit?: RunEventSink,
): Promise<RunOutcome> {
  if (intent.kind === 'message') {
    return runtime.operations.startRun(
      { query: intent.text, app: body.app, sessionId: intent.sessionId },
      caller,
      emit,
    );
  }
  const view = await runtime.operations.getSession(intent.sessionId, caller);
  const last = body.messages.at(-1);
  const { fresh, stale } = last
    ? answersIn(last, view.pendingApprovals, body.decisions)
    : { fresh: [], stale: [] };
  const decisions = fresh.length > 0 ? fresh : stale;
  if (decisions.length === 0) {
    throw new HoldpointError(
      'NO_PENDING_APPROVAL',
      'The last message answers no pending approval of this session.',
    );
  }
  // Stale answers go to the store too: it says precisely why they cannot count.
  return runtime.operations.resumeRun(
    { sessionId: intent.sessionId, decisions, channel: AI_SDK_CHANNEL },
    caller,
    emit,
  );
}

/**
 * One chat turn as an AI SDK UI message stream: `start` (reusing the assistant
 * message id when it continues one), the run's chunks, then `finish` —
 * `tool-calls` when the run paused for people, `stop` when it completed.
 * Answers known only by their approvals are first placed in their session.
 * Failures become an `error` chunk with the error's code.
 */
export function chatStream(turn: ChatTurn): ReadableStream<UIMessageChunk<ChatMessageMetadata>> {
  const messageId = turn.intent.kind === 'message' ? `msg-${randomUUID()}` : turn.intent.messageId;
  return createUIMessageStream<HoldpointUIMessage>({
    execute: async ({ writer }) => {
      const mapper = new UIChunkMapper(turn.mode);
      writer.write({ type: 'start', messageId });
      const intent = await placedIntent(turn.runtime, turn.intent, turn.caller);
      let outcome: RunOutcome;
      try {
        outcome = await runChatTurn({ ...turn, intent }, (event) => {
          for (const chunk of mapper.map(event)) writer.write(chunk);
        });
      } catch (error) {
        // A run that reported its failure already streamed its error chunk.
        if (!mapper.failed) throw error;
        writer.write({ type: 'finish', finishReason: 'error' });
        return;
      }
      writer.write({
        type: 'finish',
        finishReason: outcome.status === 'completed' ? 'stop' : 'tool-calls',
        ...(mapper.lastMetadata ? { messageMetadata: mapper.lastMetadata } : {}),
      });
    },
    onError: errorText,
  });
}
