import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { ServerProcess } from './server-process.js';

/**
 * Test support: `holdpoint serve` (the example apps, the offline models) on the default
 * SQLite store in a data directory of the test file's own; `restart()` starts it, the
 * one running before killed first (SIGKILL), as a crash would. Each test's server is
 * killed after it, the directory removed after the file.
 */
export function restartingServer(name: string): () => Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), `hp-${name}-`));
  const running: ServerProcess[] = [];
  const killAll = () => Promise.all(running.splice(0).map((s) => s.kill('SIGKILL')));
  afterEach(killAll);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  return async () => {
    await killAll();
    const server = await ServerProcess.start(['--data-dir', dataDir, '--model', 'rules']);
    running.push(server);
    return server;
  };
}
