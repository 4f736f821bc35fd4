import type { UIMessageChunk } from 'ai';
import type { RunEvent } from '../../runtime/run-event.js';
import type { ChatMessageMetadata } from './chat-metadata.js';

/** The metadata a tool part may carry (the AI SDK's JSONObject). */
type ToolMetadata = NonNullable<
  Extract<UIMessageChunk, { type: 'tool-input-available' }>['toolMetadata']
>;

/** Two-turn: the stream ends at an approval. Continuous: it waits and carries the decision. */
export type ApprovalMode = 'two-turn' | 'continuous';

/**
 * Turns run events into AI SDK UI message chunks. The SSE and WebSocket
 * transports both use it, so both speak exactly the same protocol.
 */
export class UIChunkMapper {
  private metadata?: ChatMessageMetadata;
  private stepOpen = false;
  private reportedFailure = false;
  /** Approvals whose decision this stream already carried (relays may repeat them). */
  private readonly answered = new Set<string>();

  constructor(private readonly mode: ApprovalMode) {}

  /** The chunks for one run event. */
  map(event: RunEvent): UIMessageChunk<ChatMessageMetadata>[] {
    switch (event.type) {
      case 'run-started':
        this.metadata = {
          sessionId: event.sessionId,
          invocationId: event.invocationId,
          app: event.app,
          status: 'running',
        };
        this.stepOpen = true;
        return [
          { type: 'message-metadata', messageMetadata: this.metadata },
          { type: 'start-step' },
        ];
      case 'decided':
        if (this.mode === 'two-turn') return [];
        // In continuous mode the client learns the decision from this stream.
        return event.decisions.flatMap((decision): UIMessageChunk<ChatMessageMetadata>[] => {
          const approval = event.approvals.find((a) => a.approvalId === decision.approvalId);
          if (!approval || this.answered.has(decision.approvalId)) return [];
          this.answered.add(decision.approvalId);
          if (approval.kind === 'input') {
            return decision.approved
              ? [
                  {
                    type: 'tool-output-available',
                    toolCallId: approval.toolCallId,
                    output: decision.payload ?? null,
                  },
                ]
              : [{ type: 'tool-output-denied', toolCallId: approval.toolCallId }];
          }
          return [
            {
              type: 'tool-approval-response',
              approvalId: decision.approvalId,
              approved: decision.approved,
              ...(decision.reason === undefined ? {} : { reason: decision.reason }),
            },
          ];
        });
      case 'text':
        return [
          { type: 'text-start', id: event.id },
          { type: 'text-delta', id: event.id, delta: event.text },
          { type: 'text-end', id: event.id },
        ];
      case 'tool-call':
        return [
          { type: 'tool-input-start', toolCallId: event.toolCallId, toolName: event.toolName },
          {
            type: 'tool-input-available',
            toolCallId: event.toolCallId,
            toolName: event.toolName,
            input: event.args,
            // A call a person edited ran with `input`; the model asked for `model_input`.
            ...(event.modelArgs && {
              toolMetadata: { model_input: event.modelArgs as ToolMetadata['model_input'] },
            }),
          },
        ];
      case 'tool-result':
        return [
          { type: 'tool-output-available', toolCallId: event.toolCallId, output: event.output },
        ];
      case 'tool-error':
        return [
          { type: 'tool-output-error', toolCallId: event.toolCallId, errorText: event.error },
        ];
      case 'tool-denied':
        return [{ type: 'tool-output-denied', toolCallId: event.toolCallId }];
      case 'approval-requested':
        // An input request is the tool part itself, waiting in `input-available`.
        if (event.approval.kind === 'input') return [];
        return [
          {
            type: 'tool-approval-request',
            approvalId: event.approval.approvalId,
            toolCallId: event.approval.toolCallId,
            reason: event.approval.hint,
          },
        ];
      case 'outcome': {
        const { outcome } = event;
        this.metadata = {
          sessionId: outcome.sessionId,
          invocationId: outcome.invocationId,
          app: outcome.app,
          status: outcome.status === 'completed' ? 'completed' : 'paused',
          ...(outcome.status === 'pending_approval'
            ? { expiresAt: new Date(outcome.expiresAt).toISOString() }
            : {}),
        };
        return [...this.closeStep(), { type: 'message-metadata', messageMetadata: this.metadata }];
      }
      case 'failed':
        this.reportedFailure = true;
        return [
          ...this.closeStep(),
          ...this.withStatus('failed'),
          { type: 'error', errorText: `${event.code}: ${event.message}` },
        ];
      case 'ended':
        return [...this.closeStep(), ...this.withStatus(event.reason)];
    }
  }

  private closeStep(): UIMessageChunk<ChatMessageMetadata>[] {
    const chunks: UIMessageChunk<ChatMessageMetadata>[] = this.stepOpen
      ? [{ type: 'finish-step' }]
      : [];
    this.stepOpen = false;
    return chunks;
  }

  private withStatus(status: ChatMessageMetadata['status']): UIMessageChunk<ChatMessageMetadata>[] {
    if (!this.metadata) return [];
    this.metadata = { ...this.metadata, status };
    return [{ type: 'message-metadata', messageMetadata: this.metadata }];
  }

  /** Whether a run failure was streamed already (its `error` chunk is out). */
  get failed(): boolean {
    return this.reportedFailure;
  }

  /** The last metadata sent, for the closing `finish` chunk. */
  get lastMetadata(): ChatMessageMetadata | undefined {
    return this.metadata;
  }
}
