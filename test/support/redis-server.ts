import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';

/** How often the append-only file is synced to disk (Redis's `appendfsync`). */
export type AppendFsync = 'always' | 'everysec';

/** A private redis-server for one test file, with an append-only file so restarts keep data. */
export class TestRedis {
  private process?: ChildProcess;
  private constructor(
    readonly port: number,
    private readonly dir: string,
    readonly appendFsync: AppendFsync,
  ) {}

  static async start(appendFsync: AppendFsync = 'always'): Promise<TestRedis> {
    const dir = mkdtempSync(join(tmpdir(), 'hp-redis-'));
    const redis = new TestRedis(await freePort(), dir, appendFsync);
    await redis.up();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts (or restarts) the server on the same port and data directory. */
  async up(): Promise<void> {
    this.process = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        this.appendFsync,
        '--dir',
        this.dir,
      ],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100; i++) {
      if (await reachable(this.port)) return;
      await sleep(50);
    }
    throw new Error(`redis-server did not start on port ${this.port}`);
  }

  /** Stops the server (data stays on disk for the next `up`). */
  /** Stops the server (SIGKILL: as if it crashed; the append-only file keeps what was synced). */
  async down(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  async stop(): Promise<void> {
    await this.down();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
