import { PassThrough, Writable } from 'node:stream';
import { runChat } from '../../src/transports/cli/chat.js';
import type { ChatBackend } from '../../src/transports/cli/chat-backend.js';

/**
 * Test support: `holdpoint chat` (its runChat) in this process, on `backend`, typed into
 * a line at a time while a test reads what it printed. It reads a session it waits on
 * every 10 ms, so a decision made elsewhere shows at once.
 */
export class InProcessChat {
  private text = '';
  private readonly input = new PassThrough();
  /** Resolves when the chat returns (the input ended, or /exit). */
  readonly ended: Promise<void>;

  constructor(backend: ChatBackend, app: string, sessionId?: string) {
    const output = new Writable({
      write: (chunk: Buffer | string, _encoding, done) => {
        this.text += chunk.toString();
        done();
      },
    });
    this.ended = runChat({ backend, app, sessionId, input: this.input, output, pollMs: 10 });
  }

  /** Everything printed so far. */
  get output(): string {
    return this.text;
  }

  /** Types `line` and Enter. */
  type(line: string): void {
    this.input.write(`${line}\n`);
  }

  /** Ends the input, as Ctrl-D does; resolves once the chat returned. */
  async end(): Promise<void> {
    this.input.end();
    await this.ended;
  }

  /** Resolves once the output (from `from` on) matches `pattern`; rejects after `timeoutMs`. */
  async waitFor(pattern: string | RegExp, from = 0, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const seen = this.text.slice(from);
      if (typeof pattern === 'string' ? seen.includes(pattern) : pattern.test(seen)) return seen;
      if (Date.now() > deadline) {
        throw new Error(`the chat never printed ${String(pattern)}; it printed:\n${seen}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}
