import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signedInAs } from './support/json-client.js';
import { ServerProcess } from './support/server-process.js';

// What `holdpoint serve` says while it starts and while it runs, as a person reads it
// (`--log-format lines`, what a terminal gets): the apps it loads, the store and where,
// the URL; a pause names its app, its tool and who may decide; a decision who made it
// and how.

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

let server: ServerProcess;
beforeAll(async () => {
  server = await ServerProcess.start(['--log-format', 'lines', '--store', 'memory']);
});
afterAll(() => server?.kill());

/** The lines the server printed so far, without their time. */
const lines = () =>
  server.logs
    .join('')
    .split('\n')
    .map((line) => line.replace(/^\d\d:\d\d:\d\d /, ''));

describe('holdpoint serve --log-format lines', () => {
  it('says what it loads, the store, then where it listens, one readable line each', () => {
    const said = lines();
    const loading = said.findIndex((line) => /^INFO {2}Loading \d+ apps… apps=\d+$/.test(line));
    const store = said.findIndex((line) => line.startsWith('INFO  Store: memory, this process'));
    const listening = said.findIndex((line) =>
      line.startsWith(
        `INFO  Holdpoint listening on http://127.0.0.1:${server.port} (sign-in: dev)`,
      ),
    );
    expect(
      [loading, store, listening].every((at) => at >= 0),
      said.join('\n'),
    ).toBe(true);
    expect(loading).toBeLessThan(store);
    expect(store).toBeLessThan(listening);
    expect(server.logs.join('')).not.toContain('{"level"');
  });

  it('names the app, the tool and who may decide when a run pauses; who decided and how', async () => {
    const paused = server.waitForOutput('run paused');
    const started = await fetch(`${server.url}/api/agent/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signedInAs('ann') },
      body: JSON.stringify({ query: 'Send $200 to Jiro', app: 'payments' }),
    });
    expect(started.status).toBe(200);
    const { session_id: sessionId } = (await started.json()) as { session_id: string };
    await paused;
    expect(lines()).toContainEqual(
      expect.stringMatching(
        /^INFO {2}run paused in payments: process_payment waits for role approver /,
      ),
    );
    const decided = server.waitForOutput('approved process_payment');
    const resumed = await fetch(`${server.url}/api/agent/resume`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signedInAs('maria', ['approver']) },
      body: JSON.stringify({ session_id: sessionId, approved: true }),
    });
    expect(resumed.status).toBe(200);
    await decided;
    expect(lines()).toContainEqual(
      expect.stringMatching(
        /^INFO {2}decisions recorded: maria approved process_payment in payments \(api\); the run resumes /,
      ),
    );
  });
});
