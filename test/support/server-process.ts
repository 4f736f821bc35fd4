import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';
import { JsonClient } from './json-client.js';
import { ownDataDir } from './temp-data-dir.js';

const BIN = fileURLToPath(new URL('../../bin/holdpoint.js', import.meta.url));

/** A Holdpoint server in its own OS process, as a user runs it. */
export class ServerProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    readonly logs: string[],
  ) {}

  /**
   * Starts `holdpoint serve` with `args` and `env`, on a free port. Its SQLite data goes
   * into a directory of its own (removed when it exits) unless they name one, or
   * into `cwd`'s `.holdpoint` when the test gives it a working directory of its own.
   */
  static async start(
    args: string[] = [],
    env: Record<string, string> = {},
    cwd?: string,
  ): Promise<ServerProcess> {
    // A port found free can be taken by another test's process before this one listens
    // on it (LISTEN_FAILED, EADDRINUSE): then it starts again on another.
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await ServerProcess.startOn(await freePort(), args, env, cwd);
      } catch (error) {
        if (attempt === 3 || !String(error).includes('EADDRINUSE')) throw error;
      }
    }
  }

  private static async startOn(
    port: number,
    args: string[],
    env: Record<string, string>,
    cwd: string | undefined,
  ): Promise<ServerProcess> {
    const data = cwd === undefined ? ownDataDir(args, env) : undefined;
    const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), ...args], {
      cwd,
      env: { ...process.env, LOG_LEVEL: 'info', ...(data?.env ?? env) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    data?.removeOnExit(child);
    const logs: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`server did not start:\n${logs.join('')}`)),
        90_000,
      );
      const onData = (chunk: Buffer) => {
        logs.push(chunk.toString());
        if (chunk.toString().includes('Holdpoint listening')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with ${code}:\n${logs.join('')}`));
      });
    });
    return new ServerProcess(child, port, logs);
  }

  /** Resolves as soon as the process writes `text` to stdout (from now on). */
  waitForOutput(text: string): Promise<void> {
    return new Promise((resolve) => {
      const onData = (chunk: Buffer) => {
        if (!chunk.toString().includes(text)) return;
        this.child.stdout?.off('data', onData);
        resolve();
      };
      this.child.stdout?.on('data', onData);
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get client(): JsonClient {
    return new JsonClient(this.url);
  }

  /** Ends the process with a signal and waits for it to be gone. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill(signal);
    await exited;
  }
}
