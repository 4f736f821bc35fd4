import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  chownSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** Where this machine's PostgreSQL 15 binaries live (Debian's layout). */
const BIN = process.env.TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';
/** initdb and postgres refuse to run as root: they run as this user. */
const OS_USER = 'postgres';
const START_TIMEOUT_MS = 60_000;

/**
 * Test support: a PostgreSQL server of the test's own, for tests that kill the database
 * process (the shared server at 5432 must never be killed). Its cluster lives in a temp
 * directory owned by the `postgres` user, listens on a free port of 127.0.0.1 and on a
 * socket in that directory, with trust auth, and runs with PostgreSQL's defaults
 * (fsync on, synchronous commit), so what a commit acknowledged survives `kill()` and
 * the next `start()` recovers it from the WAL as after any crash.
 */
export class OwnPostgres {
  private postmaster?: ChildProcess;
  private pid?: number;

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  /** Creates a cluster and starts its server; resolves once it answers queries. */
  static async start(): Promise<OwnPostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'hp-pg-'));
    const { uid, gid } = await osUser(OS_USER);
    chownSync(dir, uid, gid);
    const server = new OwnPostgres(await freePort(), dir);
    try {
      mkdirSync(server.socketDir);
      chownSync(server.socketDir, uid, gid);
      // --no-sync skips only initdb's final flush of the fresh cluster: these tests kill
      // processes, not the machine. The server itself keeps fsync on.
      await run('runuser', [
        '-u',
        OS_USER,
        '--',
        join(BIN, 'initdb'),
        '-D',
        server.dataDir,
        '-U',
        'postgres',
        '--auth=trust',
        '--encoding=UTF8',
        '--locale=C',
        '--no-sync',
      ]);
      await server.start();
    } catch (error) {
      await server.cleanup();
      throw error;
    }
    return server;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  get dataDir(): string {
    return join(this.dir, 'data');
  }

  get socketDir(): string {
    return join(this.dir, 'socket');
  }

  /** The log the server writes (its stderr), for a test that needs to say why it failed. */
  get logFile(): string {
    return join(this.dir, 'server.log');
  }

  /** Whether the server process is running. */
  get running(): boolean {
    return this.pid !== undefined && alive(this.pid);
  }

  /** Starts the server on the cluster (after `kill`: crash recovery); resolves once it answers. */
  async start(): Promise<void> {
    if (this.running) throw new Error('OwnPostgres: already running');
    const log = openSync(this.logFile, 'a');
    const postmaster = spawn(
      'runuser',
      [
        '-u',
        OS_USER,
        '--',
        join(BIN, 'postgres'),
        '-D',
        this.dataDir,
        '-p',
        String(this.port),
        '-k',
        this.socketDir,
        '-c',
        'listen_addresses=127.0.0.1',
      ],
      { stdio: ['ignore', log, log] },
    );
    closeSync(log);
    this.postmaster = postmaster;
    const exited = new Promise<never>((_, reject) =>
      postmaster.once('exit', (code, signal) =>
        reject(new Error(`postgres exited at start (${signal ?? code}): see ${this.logFile}`)),
      ),
    );
    exited.catch(() => undefined);
    await Promise.race([this.answering(), exited]);
    this.pid = postmasterPid(this.dataDir);
  }

  /**
   * SIGKILLs the postmaster, as a crash does, and resolves once it and its backends are
   * gone (backends exit on their own when their postmaster dies).
   */
  async kill(): Promise<void> {
    await this.halt('SIGKILL');
  }

  /** Stops the server cleanly (fast shutdown); the cluster stays for the next `start`. */
  async stop(): Promise<void> {
    await this.halt('SIGINT');
  }

  /** Stops the server and removes the cluster. */
  async cleanup(): Promise<void> {
    await this.halt('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async halt(signal: NodeJS.Signals): Promise<void> {
    const pid = this.pid;
    const launcher = this.postmaster;
    this.pid = undefined;
    this.postmaster = undefined;
    if (pid === undefined || !alive(pid)) return;
    const backends = childrenOf(pid);
    const launcherGone =
      launcher && launcher.exitCode === null && launcher.signalCode === null
        ? new Promise((resolve) => launcher.once('exit', resolve))
        : Promise.resolve();
    process.kill(pid, signal);
    for (const gone of [pid, ...backends]) await until(() => !alive(gone));
    await launcherGone;
  }

  /** Resolves once the server answers a query. */
  private async answering(): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const client = new pg.Client({ connectionString: this.url });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      } finally {
        await client.end().catch(() => undefined);
      }
      await sleep(50);
    }
  }
}

async function osUser(name: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([
    run('id', ['-u', name]).then(({ stdout }) => Number(stdout.trim())),
    run('id', ['-g', name]).then(({ stdout }) => Number(stdout.trim())),
  ]);
  return { uid, gid };
}

/** The postmaster's PID, from the lock file it writes in its data directory. */
function postmasterPid(dataDir: string): number {
  const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error('OwnPostgres: no postmaster.pid');
  return pid;
}

/** Whether process `pid` exists (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The processes whose parent is `pid` (the postmaster's backends and helpers). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which may contain spaces): state, ppid, …
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return children;
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await sleep(10);
}
