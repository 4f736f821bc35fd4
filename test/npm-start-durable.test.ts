import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { codeBlocks } from './support/code-blocks.js';
import { signedInAs } from './support/json-client.js';
import { runToEnd } from './support/run-to-end.js';
import { ServerProcess } from './support/server-process.js';

// `npm start` is `node bin/holdpoint.js serve` after the build, on the default store:
// SQLite in `.holdpoint` under the working directory. A run paused with the README's own
// request survives the server being killed (SIGKILL: no shutdown of any kind) and is
// approved, with the README's own request, on the next `npm start`: the same run completes.

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** `npm start`'s apps (holdpoint.config.ts); the offline models, as without an API key. */
const NPM_START_ARGS = ['--config', join(ROOT, 'holdpoint.config.ts')];
const NPM_START_ENV = { GEMINI_API_KEY: '', GOOGLE_API_KEY: '' };

/** The README's "same over HTTP" block: the pause (up to the blank line), then the approval. */
const README_HTTP = codeBlocks(join(ROOT, 'README.md'), 'README.md').find((block) =>
  block.text.includes('/api/agent/start'),
);
const [PAUSE_SCRIPT = '', APPROVE_SCRIPT = ''] = README_HTTP?.text.split('\n\n') ?? [];

/** A working directory of the test's own, standing for the clone `npm start` runs in. */
const cwd = mkdtempSync(join(tmpdir(), 'hp-npm-start-'));
const servers: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill('SIGKILL')));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

async function npmStart(): Promise<ServerProcess> {
  const server = await ServerProcess.start(NPM_START_ARGS, NPM_START_ENV, cwd);
  servers.push(server);
  return server;
}

/** Runs a README script against `server` (its `localhost:3000`), with `env`; resolves its stdout. */
async function readmeScript(
  script: string,
  server: ServerProcess,
  env: Record<string, string> = {},
): Promise<string> {
  const text = script.replace(/localhost:3000/g, `127.0.0.1:${server.port}`);
  const ended = await runToEnd('bash', ['-eo', 'pipefail', '-c', text], { env });
  if (ended.code !== 0) throw new Error(`exited ${ended.code}: ${ended.stderr}${ended.stdout}`);
  return ended.stdout;
}

describe('npm start twice with a SIGKILL between', () => {
  it('says where its data is, and the run paused before the kill resumes after it', async () => {
    expect(PAUSE_SCRIPT).toContain('-d \'{"query":"Generate 10 images"}\'');
    expect(APPROVE_SCRIPT).toContain('/api/agent/resume');

    const first = await npmStart();
    const dataDir = join(cwd, '.holdpoint');
    expect(first.logs.join('')).toContain(`Store: sqlite, data directory ${dataDir}`);
    const paused = JSON.parse(await readmeScript(PAUSE_SCRIPT, first));
    expect(paused).toMatchObject({ status: 'pending_approval', app: 'image-studio' });
    expect(existsSync(join(dataDir, 'holdpoint.db'))).toBe(true);

    await first.kill('SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');

    const second = await npmStart();
    const pending = await second.client.get(
      `/api/sessions/${paused.session_id}`,
      signedInAs('fabricio'),
    );
    expect(pending.body).toMatchObject({ status: 'paused' });
    const resumed = JSON.parse(
      await readmeScript(APPROVE_SCRIPT, second, { paused: JSON.stringify(paused) }),
    );
    expect(resumed).toMatchObject({
      status: 'completed',
      session_id: paused.session_id,
      invocation_id: paused.invocation_id,
      result: 'Here are the 10 images (order REQ-10-HUMAN).',
    });
  });
});
