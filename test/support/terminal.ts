import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ownDataDir } from './temp-data-dir.js';

const BIN = fileURLToPath(new URL('../../bin/holdpoint.js', import.meta.url));

/**
 * `holdpoint <args>` in a pseudo-terminal (util-linux `script` gives it one, as a
 * terminal would), typed into a line at a time while a test reads what it printed.
 */
export class Terminal {
  private text = '';
  private readonly exit: Promise<number | null>;

  private constructor(private readonly child: ChildProcess) {
    const collect = (chunk: Buffer) => {
      this.text += chunk.toString();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exit = new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => resolve(code));
    });
  }

  /** `holdpoint <args>` in a data directory of its own (removed when it exits) unless they name one. */
  static start(args: string[], env: Record<string, string> = {}): Terminal {
    const data = ownDataDir(args, env);
    const command = [process.execPath, BIN, ...args]
      .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
      .join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...process.env, TERM: 'dumb', ...data.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    data.removeOnExit(child);
    return new Terminal(child);
  }

  /** Everything printed so far (and the terminal's echo of what was typed), `\n` line ends. */
  get output(): string {
    return this.text.replaceAll('\r\n', '\n');
  }

  /** Types `line` and Enter. */
  type(line: string): void {
    this.child.stdin?.write(`${line}\n`);
  }

  /** Ctrl-D at the start of a line: the terminal's end of input. */
  endInput(): void {
    this.child.stdin?.write('\x04');
  }

  /** Resolves once the output (from `from` on) matches `pattern`; rejects after `timeoutMs`. */
  async waitFor(pattern: string | RegExp, from = 0, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const seen = this.output.slice(from);
      const match = typeof pattern === 'string' ? seen.includes(pattern) : pattern.test(seen);
      if (match) return seen;
      if (Date.now() > deadline || this.child.exitCode !== null) {
        throw new Error(`no ${String(pattern)} in the terminal:\n${this.output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The exit code, once the command has ended. */
  exited(): Promise<number | null> {
    return this.exit;
  }

  /** Ends the command (if it still runs) and waits for it. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    await this.exit.catch(() => undefined);
  }
}
