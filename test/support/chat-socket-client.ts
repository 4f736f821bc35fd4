import type { UIMessage, UIMessageChunk } from 'ai';
import WebSocket from 'ws';
import { TESTER } from './json-client.js';

/** A raw chat-socket client: speaks the AI SDK transport frames and Holdpoint's decision frame. */
export class ChatSocketClient {
  private constructor(readonly socket: WebSocket) {}

  /**
   * Opens a socket with these handshake headers: by default signed in (the server's
   * `dev` mode) as a `tester` with the `admin` role.
   */
  static async connect(
    url: string,
    headers: Record<string, string> = TESTER,
  ): Promise<ChatSocketClient> {
    const socket = new WebSocket(url, { headers });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new ChatSocketClient(socket);
  }

  /** Frames received from now on, parsed. */
  frames(): Record<string, unknown>[] {
    const received: Record<string, unknown>[] = [];
    this.socket.on('message', (data) => received.push(JSON.parse(String(data))));
    return received;
  }

  /** Sends a `send` frame and collects its chunks until `end` (or `error`). */
  turn(
    requestId: string,
    chat: { id: string; messages: UIMessage[]; body: Record<string, unknown> },
    onChunk: (chunk: UIMessageChunk) => void = () => {},
  ): Promise<{
    chunks: UIMessageChunk[];
    sequences: number[];
    ended: 'end' | 'error';
    errorText?: string;
  }> {
    const chunks: UIMessageChunk[] = [];
    const sequences: number[] = [];
    return new Promise((resolve) => {
      const onMessage = (data: WebSocket.RawData) => {
        const frame = JSON.parse(String(data));
        if (frame.requestId !== requestId) return;
        if (frame.type === 'chunk') {
          chunks.push(frame.chunk);
          sequences.push(frame.sequence);
          onChunk(frame.chunk);
        } else if (frame.type === 'end' || frame.type === 'error') {
          this.socket.off('message', onMessage);
          resolve({ chunks, sequences, ended: frame.type, errorText: frame.errorText });
        }
      };
      this.socket.on('message', onMessage);
      this.socket.send(
        JSON.stringify({
          type: 'send',
          requestId,
          id: chat.id,
          messages: chat.messages,
          trigger: 'submit-message',
          headers: {},
          body: chat.body,
        }),
      );
    });
  }

  /** Sends a decision frame and waits for its result or error frame. */
  decide(decision: {
    approvalId: string;
    approved: boolean;
    reason?: string;
    payload?: unknown;
    userId?: string;
    argsHash?: string;
    editedArgs?: Record<string, unknown>;
    response?: unknown;
  }): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      const onMessage = (data: WebSocket.RawData) => {
        const frame = JSON.parse(String(data));
        if (frame.type !== 'decision-result' && frame.type !== 'decision-error') return;
        this.socket.off('message', onMessage);
        resolve(frame);
      };
      this.socket.on('message', onMessage);
      this.socket.send(JSON.stringify({ type: 'decision', ...decision }));
    });
  }

  /** Resolves with the close code once the server closes the socket. */
  closed(): Promise<{ code: number; reason: string }> {
    return new Promise((resolve) =>
      this.socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
  }

  close(): void {
    this.socket.close();
  }
}
