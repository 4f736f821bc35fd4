import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { safeValidateWebSocketChatTransportRequest, type WebSocketChatTransportResponse } from 'ai';
import type { Logger } from 'pino';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { HoldpointError, isHoldpointError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { idText, validate } from '../../core/validate.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import { decisionInput } from '../../runtime/requests.js';
import { type Identity, requireIdentity } from '../auth/index.js';
import {
  admitUpgrade,
  type BrowserPolicy,
  presentError,
  presentOutcome,
  refuseUpgrade,
  requireActingAs,
  SocketHeartbeat,
  type SocketLimits,
} from '../http/index.js';
import { type ChatIntent, type PostedIntent, postedIntent } from './chat-intent.js';
import { type ChatRequestBody, chatRequestBody } from './chat-request.js';
import { AI_SDK_CHANNEL, errorText, runChatTurn } from './chat-stream.js';
import { ContinuousStream } from './continuous-stream.js';

/** Where `WebSocketChatTransport` connects. */
export const CHAT_SOCKET_PATH = '/api/chat/ws';

const MAX_FRAME_BYTES = 1024 * 1024;

/**
 * Holdpoint's own frame: a decision sent on any chat socket, for any pending approval,
 * as rich as a REST one (the hash seen, edited arguments, an answer, a grant).
 */
const decisionFrame = z.strictObject({
  type: z.literal('decision'),
  userId: idText.optional(),
  ...decisionInput.omit({ channel: true }).shape,
});

/**
 * A `send` frame's envelope, checked as the AI SDK's own validator checks it. Its
 * messages are read as a chat body is over SSE (chatRequestBody), not as the SDK's
 * strict UI messages: a client's own shapes, such as seed 001's approval message
 * (`role: "user"`, no `id`, a tool part without `input`), are accepted on both transports.
 */
const sendFrame = z.looseObject({
  type: z.literal('send'),
  requestId: z.string(),
  id: z.string(),
  trigger: z.enum(['submit-message', 'regenerate-message']),
  messageId: z.string().optional(),
  messages: z.array(z.unknown()),
  headers: z.record(z.string(), z.string()),
  body: z.record(z.string(), z.unknown()),
});

export interface ChatSocketOptions {
  runtime: HoldpointRuntime;
  logger: Logger;
  /** How callers prove who they are, at the handshake (cookie, query token or subprotocol). */
  identity: Identity;
  /** Which pages may open the socket (Origin) and which host names it answers to. */
  policy: BrowserPolicy;
  /**
   * Streams per socket, sockets per principal (counted across every endpoint sharing
   * this object), pings and the idle time, and the clock they are kept by.
   */
  limits: SocketLimits;
  /** Where the socket listens. Default `/api/chat/ws`. */
  path?: string;
  /**
   * Answer upgrades to any other path with 404: only for a server nothing else
   * upgrades on. On a server of the user's own, other upgrades are left to it.
   */
  rejectOtherPaths?: boolean;
}

/** A chat socket endpoint on a server. */
export interface ChatSocketEndpoint {
  /** Detaches from the server and closes every socket. */
  close(): void;
}

/**
 * One client connection: many chat requests multiplexed by `requestId`, plus decision
 * frames. At most `streamsPerSocket` streams are open at once; `send` and `decision`
 * frames count against the caller's run limit.
 */
class ChatConnection {
  private readonly streams = new Map<string, ContinuousStream>();
  private readonly heartbeat: SocketHeartbeat;

  constructor(
    private readonly socket: WebSocket,
    /** Who opened the socket, proved at the handshake: every frame acts as them. */
    private readonly caller: Principal,
    /**
     * Proves the handshake's credentials again: every frame that acts does, so a socket
     * stops acting once its token expires or its key is revoked.
     */
    private readonly reprove: () => Promise<Principal>,
    private readonly options: ChatSocketOptions,
    /** Frees the caller's socket slot; called once the socket is closed. */
    release: () => void,
  ) {
    this.heartbeat = new SocketHeartbeat(socket, options.limits);
    socket.on('message', (data) => {
      this.heartbeat.used();
      this.onFrame(data).catch((error: unknown) => {
        options.logger.error({ err: error }, 'chat socket frame failed');
      });
    });
    socket.on('close', () => {
      release();
      for (const stream of this.streams.values()) stream.abort();
      this.streams.clear();
    });
    // A frame the protocol forbids (too large, bad UTF-8, unmasked, a reserved opcode or
    // bit, a bad close code): ws has already closed this socket with the matching code;
    // nothing else is affected.
    socket.on('error', (error) => {
      options.logger.debug({ err: error }, 'chat socket closed on a bad frame');
    });
  }

  /** One look of the endpoint's beat: ping the socket, or close it if it is dead or idle. */
  beat(): void {
    this.heartbeat.beat(this.streams.size);
  }

  private send(frame: WebSocketChatTransportResponse | Record<string, unknown>): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(frame));
  }

  /**
   * Whether the socket's credentials still prove its caller; when they do not, says so
   * (`send` as the error frame of its kind) and closes the socket: a client reconnects
   * with fresh credentials.
   */
  private async stillProved(refuse: (error: HoldpointError) => void): Promise<boolean> {
    try {
      const now = await this.reprove();
      if (now.id === this.caller.id) return true;
      throw new HoldpointError('UNAUTHENTICATED', 'The socket now proves someone else.');
    } catch (error) {
      const failure = isHoldpointError(error)
        ? error
        : new HoldpointError('INTERNAL', 'Internal error.');
      if (!isHoldpointError(error)) {
        this.options.logger.error({ err: error }, 'proving a chat socket again failed');
      }
      refuse(failure);
      this.socket.close(1008, `${failure.code}: the credentials of this socket no longer hold`);
      return false;
    }
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
    const send = sendFrame.safeParse(value);
    if (send.success) {
      const frame = send.data;
      await this.onSend(frame.requestId, {
        ...frame.body,
        id: frame.id,
        messages: frame.messages,
        trigger: frame.trigger,
      });
      return;
    }
    const validated = await safeValidateWebSocketChatTransportRequest({ value });
    if (!validated.success || validated.data.type === 'send') {
      this.socket.close(1008, 'VALIDATION_FAILED: not a chat transport frame');
      return;
    }
    const frame = validated.data;
    if (frame.type === 'abort') {
      this.streams.get(frame.requestId)?.abort();
      this.streams.delete(frame.requestId);
    } else {
      // Streams are not retained for replay: a reconnecting client reloads the session instead.
      this.send({ type: 'no-active', requestId: frame.requestId });
    }
  }

  /**
   * The answers `intent` gives, in the session of the stream of this socket that waits
   * for them: the stream that follows the session the body names, or, for answers known
   * only by their approvals, the one that waits for every approval they answer.
   * Undefined when no stream of this socket waits for them.
   */
  private answersForWaitingStream(intent: PostedIntent): ChatIntent | undefined {
    const streams = [...this.streams.values()];
    if (intent.kind === 'answers') {
      return streams.some((stream) => stream.sessionId === intent.sessionId) ? intent : undefined;
    }
    if (intent.kind === 'message') return undefined;
    const sessionId = streams.find((stream) =>
      intent.approvalIds.every((approvalId) => stream.waitsFor(approvalId)),
    )?.sessionId;
    return sessionId === undefined
      ? undefined
      : { kind: 'answers', sessionId, messageId: intent.messageId };
  }

  /**
   * Answers that a stream of this socket waits for: they are decided, and that stream
   * carries the decision, the tool output and the reply to its one end. This request
   * streams nothing of the run (a second copy of it would be a second `finish` on the
   * socket); it ends once the decisions are recorded and the segment they resumed has
   * stopped, or gets the error that refused them.
   */
  private async answerWaitingStream(
    requestId: string,
    body: ChatRequestBody,
    intent: ChatIntent,
  ): Promise<void> {
    try {
      await this.options.runtime.countRequest(this.caller, 'runs');
      await runChatTurn({ runtime: this.options.runtime, body, intent, caller: this.caller });
    } catch (error) {
      // A run that failed after the decision reports itself on the waiting stream.
      if (!isHoldpointError(error, 'RUN_FAILED')) {
        if (!isHoldpointError(error)) {
          this.options.logger.error({ err: error }, 'answering a waiting stream failed');
        }
        this.send({ type: 'error', requestId, errorText: errorText(error) });
        return;
      }
    }
    this.send({ type: 'end', requestId });
  }

  private async onSend(requestId: string, raw: Record<string, unknown>): Promise<void> {
    const refuse = (error: HoldpointError) =>
      this.send({ type: 'error', requestId, errorText: errorText(error) });
    if (!(await this.stillProved(refuse))) return;
    let body: ChatRequestBody;
    let intent: PostedIntent | undefined;
    let waiting: ChatIntent | undefined;
    try {
      body = validate(chatRequestBody, raw);
      intent = postedIntent(body);
      if (!intent) {
        throw new HoldpointError('VALIDATION_FAILED', 'the last message asks for nothing');
      }
      requireActingAs(this.caller, body.userId, 'socket');
      waiting = this.answersForWaitingStream(intent);
      if (!waiting && this.streams.has(requestId)) {
        // One stream per requestId: a second would escape the cap and never be aborted.
        throw new HoldpointError(
          'VALIDATION_FAILED',
          `a stream with requestId ${requestId} is open on this socket`,
        );
      }
      // Answers for a stream that waits open nothing: that stream carries the run on.
      if (!waiting) this.options.limits.admitStream(this.streams.size);
    } catch (error) {
      this.send({ type: 'error', requestId, errorText: errorText(error) });
      return;
    }
    if (waiting) {
      await this.answerWaitingStream(requestId, body, waiting);
      return;
    }
    let sequence = 0;
    const stream = new ContinuousStream({
      runtime: this.options.runtime,
      logger: this.options.logger,
      write: (chunk) => this.send({ type: 'chunk', requestId, sequence: sequence++, chunk }),
      end: () => {
        if (this.streams.get(requestId) === stream) this.streams.delete(requestId);
        this.heartbeat.used();
        this.send({ type: 'end', requestId });
      },
    });
    // Held while the run limit is counted, so sends arriving meanwhile see it open.
    this.streams.set(requestId, stream);
    try {
      await this.options.runtime.countRequest(this.caller, 'runs');
    } catch (error) {
      if (!isHoldpointError(error)) {
        this.options.logger.error({ err: error }, 'counting a send frame failed');
      }
      if (this.streams.get(requestId) === stream) this.streams.delete(requestId);
      this.send({ type: 'error', requestId, errorText: errorText(error) });
      return;
    }
    // Aborted, or the socket closed, while it was counted: nothing to start.
    if (this.streams.get(requestId) !== stream) return;
    const messageId = intent.kind === 'message' ? `msg-${randomUUID()}` : intent.messageId;
    void stream.start(body, intent, this.caller, messageId);
  }

  private async onDecision(value: unknown): Promise<void> {
    let frame: z.infer<typeof decisionFrame>;
    try {
      frame = validate(decisionFrame, value);
    } catch (error) {
      // The id it names, when it names one, so the client knows which decision failed.
      const named = (value as { approvalId?: unknown }).approvalId;
      const approvalId = typeof named === 'string' ? { approvalId: named } : {};
      this.send({
        type: 'decision-error',
        ...approvalId,
        ...presentError(error as HoldpointError),
      });
      return;
    }
    const { type: _, userId, ...decision } = frame;
    const { approvalId } = decision;
    const refuse = (error: HoldpointError) =>
      this.send({ type: 'decision-error', approvalId, ...presentError(error) });
    if (!(await this.stillProved(refuse))) return;
    try {
      requireActingAs(this.caller, userId, 'socket');
      await this.options.runtime.countRequest(this.caller, 'runs');
      const outcome = await this.options.runtime.checkedOperations.decideApproval(
        { ...decision, channel: AI_SDK_CHANNEL },
        this.caller,
      );
      this.send({ type: 'decision-result', approvalId, ...presentOutcome(outcome) });
    } catch (error) {
      if (!isHoldpointError(error)) {
        this.options.logger.error({ err: error }, 'decision frame failed');
      }
      const failure = isHoldpointError(error)
        ? error
        : new HoldpointError('INTERNAL', 'Internal error.');
      this.send({ type: 'decision-error', approvalId, ...presentError(failure) });
    }
  }
}

/** The upgrade request as a web Request, for the identity to read. */
function asRequest(incoming: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return new Request(
    new URL(incoming.url ?? '/', `http://${incoming.headers.host ?? 'localhost'}`),
    {
      headers,
    },
  );
}

/** The chat socket paths attached to each server, so one path is served once. */
const attachedPaths = new WeakMap<Server, Set<string>>();

/**
 * Serves the AI SDK's WebSocket chat protocol (continuous approvals) on `server`.
 * Upgrades to other paths are the host's, unless nothing else listens for upgrades:
 * then they get 404 rather than hang. Handshakes the policy refuses (Host, Origin) are
 * answered 403 before any upgrade. VALIDATION_FAILED when `path` is served already.
 */
export function attachChatSocket(server: Server, options: ChatSocketOptions): ChatSocketEndpoint {
  const socketPath = options.path ?? CHAT_SOCKET_PATH;
  const paths = attachedPaths.get(server) ?? new Set<string>();
  if (paths.has(socketPath)) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `A chat socket is already attached at ${socketPath} on this server.`,
    );
  }
  paths.add(socketPath);
  attachedPaths.set(server, paths);
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const connections = new Set<ChatConnection>();
  const { limits } = options;
  const beatMs = limits.beatMs;
  const stopBeat =
    beatMs === undefined
      ? () => {}
      : limits.clock.every(beatMs, () => {
          for (const connection of connections) connection.beat();
        });
  /** Upgrades a handshake whose caller was proved, counted and given a socket slot. */
  const upgrade = (
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    caller: Principal,
    reprove: () => Promise<Principal>,
    release: () => void,
  ) => {
    let opened = false;
    try {
      // ws calls back at once, or not at all when it refuses the handshake itself.
      sockets.handleUpgrade(request, socket, head, (ws) => {
        opened = true;
        const connection = new ChatConnection(ws, caller, reprove, options, () => {
          connections.delete(connection);
          release();
        });
        connections.add(connection);
      });
    } finally {
      if (!opened) release();
    }
  };
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const ours = path === socketPath;
    const reject = !ours && (options.rejectOtherPaths || server.listenerCount('upgrade') === 1);
    // Another path's socket is the host's to handle, errors included.
    if (!ours && !reject) return;
    socket.on('error', () => socket.destroy());
    if (reject) {
      socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n');
      return;
    }
    if (!admitUpgrade(options.policy, request, socket)) return;
    void handshake(request, socket, head, path);
  };
  /**
   * Proves who opens the socket and counts the handshake as one of their requests,
   * before anything is upgraded: a refusal (401, 429, …) is a plain HTTP answer.
   */
  const handshake = async (
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    path: string,
  ) => {
    let caller: Principal;
    let release: () => void;
    const credentials = {
      request: asRequest(request),
      remoteAddress: request.socket.remoteAddress,
      handshake: true,
    };
    const prove = () => requireIdentity(options.identity, credentials);
    try {
      caller = await prove();
      await options.runtime.countRequest(caller, 'requests');
      release = limits.admit(caller);
    } catch (error) {
      if (!isHoldpointError(error)) {
        options.logger.error({ err: error }, 'chat socket handshake failed');
      }
      refuseUpgrade(
        socket,
        isHoldpointError(error) ? error : new HoldpointError('INTERNAL', 'Internal error.'),
      );
      return;
    }
    try {
      upgrade(request, socket, head, caller, prove, release);
    } catch (error) {
      // Another upgrade handler (say, a WebSocketServer with no path) took this socket first.
      options.logger.warn({ err: error, path }, 'chat socket upgrade taken by another handler');
    }
  };
  server.on('upgrade', onUpgrade);
  return {
    close: () => {
      stopBeat();
      server.off('upgrade', onUpgrade);
      paths.delete(socketPath);
      for (const client of sockets.clients) client.terminate();
      sockets.close();
    },
  };
}
