import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import { safeValidateWebSocketChatTransportRequest, type WebSocketChatTransportResponse } from 'ai';
import type { Logger } from 'pino';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { HoldpointError, isHoldpointError } from '../../core/errors.js';
import type { HoldpointRuntime } from '../../runtime/runtime.js';
import { resolveCaller } from '../http/caller.js';
import { presentOutcome } from '../http/present.js';
import { chatIntent } from './chat-intent.js';
import { chatRequestBody } from './chat-request.js';
import { ContinuousStream } from './continuous-stream.js';

/** Where `WebSocketChatTransport` connects. */
export const CHAT_SOCKET_PATH = '/api/chat/ws';

const MAX_FRAME_BYTES = 1024 * 1024;

/** Holdpoint's own frame: a decision sent on any chat socket, for any pending approval. */
const decisionFrame = z.object({
  type: z.literal('decision'),
  approvalId: z.string().min(1).max(200),
  approved: z.boolean(),
  reason: z.string().max(2000).optional(),
  payload: z.unknown().optional(),
  userId: z.string().trim().min(1).max(200).optional(),
});

export interface ChatSocketOptions {
  runtime: HoldpointRuntime;
  logger: Logger;
}

/** One client connection: many chat requests multiplexed by `requestId`, plus decision frames. */
class ChatConnection {
  private readonly streams = new Map<string, ContinuousStream>();

  constructor(
    private readonly socket: WebSocket,
    private readonly request: IncomingMessage,
    private readonly options: ChatSocketOptions,
  ) {
    socket.on('message', (data) => {
      this.onFrame(data).catch((error: unknown) => {
        options.logger.error({ err: error }, 'chat socket frame failed');
      });
    });
    socket.on('close', () => {
      for (const stream of this.streams.values()) stream.abort();
      this.streams.clear();
    });
  }

  private send(frame: WebSocketChatTransportResponse | Record<string, unknown>): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(frame));
  }

  private async onFrame(data: RawData): Promise<void> {
    let value: unknown;
    try {
      value = JSON.parse(String(data));
    } catch {
      this.socket.close(1008, 'INVALID_JSON: frames are JSON objects');
      return;
    }
    if ((value as { type?: unknown } | null)?.type === 'decision') {
      await this.onDecision(value);
      return;
    }
    const validated = await safeValidateWebSocketChatTransportRequest({ value });
    if (!validated.success) {
      this.socket.close(1008, 'VALIDATION_FAILED: not a chat transport frame');
      return;
    }
    const frame = validated.data;
    if (frame.type === 'abort') {
      this.streams.get(frame.requestId)?.abort();
      this.streams.delete(frame.requestId);
    } else if (frame.type === 'resume') {
      // Streams are not retained for replay: a reconnecting client reloads the session instead.
      this.send({ type: 'no-active', requestId: frame.requestId });
    } else {
      this.onSend(frame.requestId, {
        ...(frame.body ?? {}),
        id: frame.id,
        messages: frame.messages,
        trigger: frame.trigger,
      });
    }
  }

  private onSend(requestId: string, raw: Record<string, unknown>): void {
    const parsed = chatRequestBody.safeParse(raw);
    const intent = parsed.success ? chatIntent(parsed.data) : undefined;
    if (!parsed.success || !intent) {
      const why = parsed.success
        ? 'the last message asks for nothing'
        : parsed.error.issues[0]?.message;
      this.send({ type: 'error', requestId, errorText: `VALIDATION_FAILED: ${why}` });
      return;
    }
    let sequence = 0;
    const stream = new ContinuousStream({
      runtime: this.options.runtime,
      logger: this.options.logger,
      write: (chunk) => this.send({ type: 'chunk', requestId, sequence: sequence++, chunk }),
      end: () => {
        this.streams.delete(requestId);
        this.send({ type: 'end', requestId });
      },
    });
    this.streams.set(requestId, stream);
    const messageId = intent.kind === 'answers' ? intent.messageId : `msg-${randomUUID()}`;
    const userId = resolveCaller(this.request, parsed.data.userId);
    void stream.start(parsed.data, intent, userId, messageId);
  }

  private async onDecision(value: unknown): Promise<void> {
    const parsed = decisionFrame.safeParse(value);
    if (!parsed.success) {
      this.send({
        type: 'decision-error',
        code: 'VALIDATION_FAILED',
        message: parsed.error.issues[0]?.message ?? 'invalid decision frame',
      });
      return;
    }
    const { approvalId, approved, reason, payload, userId } = parsed.data;
    try {
      const outcome = await this.options.runtime.decideApproval(
        { approvalId, approved, reason, payload },
        resolveCaller(this.request, userId),
      );
      this.send({ type: 'decision-result', approvalId, ...presentOutcome(outcome) });
    } catch (error) {
      const failure = isHoldpointError(error)
        ? error
        : new HoldpointError('INTERNAL', 'Internal error.');
      this.send({
        type: 'decision-error',
        approvalId,
        code: failure.code,
        message: failure.message,
      });
    }
  }
}

/** Serves the AI SDK's WebSocket chat protocol (continuous approvals) on `server`. */
export function attachChatSocket(server: Server, options: ChatSocketOptions): WebSocketServer {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  server.on('upgrade', (request, socket, head) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path !== CHAT_SOCKET_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => new ChatConnection(ws, request, options));
  });
  return sockets;
}
