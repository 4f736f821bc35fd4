import { type ChildProcess, spawn } from 'node:child_process';

/** How a process ended, and what it printed. */
export interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr as they came, interleaved. */
  output: string;
}

/** Where and how `runToEnd` runs its process. */
export interface RunOptions {
  /** Added to this process's environment. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Written to its stdin, which is then closed (closed at once without). */
  input?: string;
  /** Told of the process as it starts (to clean up after it, say). */
  onSpawn?: (child: ChildProcess) => void;
}

/**
 * Runs `command` with `args` to its end (its output streams closed too, so nothing it
 * printed is missed): its exit code and what it printed. A command that cannot start
 * rejects.
 */
export function runToEnd(
  command: string,
  args: string[],
  options: RunOptions = {},
): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    options.onSpawn?.(child);
    const ended: Ended = { code: null, stdout: '', stderr: '', output: '' };
    child.stdout.on('data', (chunk: Buffer) => {
      ended.stdout += chunk.toString();
      ended.output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      ended.stderr += chunk.toString();
      ended.output += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ ...ended, code }));
    child.stdin.end(options.input ?? '');
  });
}
