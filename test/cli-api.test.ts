import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OPERATIONS_BY_RESOURCE } from '../src/transports/http/operations/index.js';
import { JsonClient } from './support/json-client.js';
import { type Ended, runToEnd } from './support/run-to-end.js';
import { ServerProcess } from './support/server-process.js';

// Real OS processes start slowly on a loaded 2-core machine; they are bounded by these
// limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

// `holdpoint api`: every operation of the REST API as a command, derived from the
// operations' definitions, called against a running server.
const BIN = fileURLToPath(new URL('../bin/holdpoint.js', import.meta.url));
const GRANTS_APP = fileURLToPath(new URL('./support/grants-app.ts', import.meta.url));

let server: ServerProcess;

beforeAll(async () => {
  server = await ServerProcess.start([
    '--model',
    'rules',
    '--store',
    'memory',
    '--app',
    GRANTS_APP,
  ]);
});
afterAll(async () => {
  await server?.kill();
});

/** `holdpoint api <args>` against the server, to its end. */
function api(...args: string[]): Promise<Ended> {
  return apiAt(server.url, ...args);
}

/** `holdpoint api <args>` against the server at `url`, to its end. */
function apiAt(url: string, ...args: string[]): Promise<Ended> {
  return runToEnd(process.execPath, [BIN, 'api', ...args, '--url', url], {
    env: { LOG_LEVEL: 'silent' },
  });
}

/** The JSON a call printed, once it exited 0. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary answer fields
function answer(ran: Ended): any {
  expect(ran.code, ran.stderr).toBe(0);
  return JSON.parse(ran.stdout);
}

describe('holdpoint api', () => {
  it('lists every operation the definitions declare, by resource, with no CLI change', async () => {
    const listed = await api();
    expect(listed.code, listed.stderr).toBe(0);
    for (const [resource, operations] of Object.entries(OPERATIONS_BY_RESOURCE)) {
      expect(listed.stdout).toMatch(new RegExp(`^${resource}$`, 'm'));
      for (const operation of operations) {
        const method = operation.method.toUpperCase();
        const line = new RegExp(
          `^ {2}${operation.name} +${method} +${operation.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +`,
          'm',
        );
        expect(listed.stdout).toMatch(line);
        expect(listed.stdout).toContain(operation.summary);
      }
    }
    expect(listed.stdout).toMatch(
      /^ {2}approvalEvents .* \(a stream, text\/event-stream: not called here\)$/m,
    );
  });

  it('starts a run, finds its approval, decides it with its args_hash, reads its audit', async () => {
    const started = answer(
      await api('startRun', '--body', '{"app":"grants","query":"tip 5 jiro"}', '--user', 'cleo'),
    );
    expect(started.status).toBe('pending_approval');
    const [asked] = started.approvals;

    const inbox = answer(await api('listApprovals', '--query', 'limit=10', '--user', 'cleo'));
    expect(inbox.approvals.map((a: { approval_id: string }) => a.approval_id)).toContain(
      asked.approval_id,
    );

    const decided = answer(
      await api(
        'decideApproval',
        '--param',
        `approvalId=${asked.approval_id}`,
        '--body',
        JSON.stringify({ approved: true, args_hash: asked.args_hash }),
        '--user',
        'cleo',
      ),
    );
    expect(decided).toMatchObject({ status: 'completed', session_id: started.session_id });
    expect(decided.result).toContain('tip: {"status":"sent"');

    // An answer that is not JSON (NDJSON) is printed as it came: one audit line a row.
    const audit = await api(
      'readAudit',
      '--query',
      `session_id=${started.session_id}`,
      '--query',
      'format=ndjson',
      '--user',
      'cleo',
    );
    expect(audit.code, audit.stderr).toBe(0);
    const rows = audit.stdout.trim().split('\n');
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) expect(JSON.parse(row).session_id).toBe(started.session_id);
  });

  it('refuses a body its wire schema refuses before sending it, naming the field', async () => {
    const started = answer(
      await api('startRun', '--body', '{"app":"grants","query":"tip 2 mia"}', '--user', 'cleo'),
    );
    const [asked] = started.approvals;
    const refused = await api(
      'decideApproval',
      '--param',
      `approvalId=${asked.approval_id}`,
      '--body',
      '{"approved":"yes"}',
      '--user',
      'cleo',
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^holdpoint: VALIDATION_FAILED: decideApproval body\.approved: .* \(not sent\)\n$/,
    );
    // Nothing reached the server: the approval still waits.
    const session = await new JsonClient(server.url, { user: 'cleo' }).get(
      `/api/sessions/${started.session_id}`,
    );
    expect(session.body.pending_approvals).toHaveLength(1);
  });

  it('exits 1 with the server’s code when it refuses', async () => {
    const refused = await api('revokeGrant', '--param', 'grantId=grt_nothing', '--user', 'cleo');
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^holdpoint: GRANT_NOT_FOUND: /);
    const forbidden = await api('getStoreStats', '--user', 'cleo');
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toMatch(/^holdpoint: FORBIDDEN: /);
  });

  it('says which operation is unknown, and where the list is; a stream is not called', async () => {
    const unknown = await api('decideApprovals', '--user', 'cleo');
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toBe(
      'holdpoint: VALIDATION_FAILED: No operation is named decideApprovals: `holdpoint api` lists them all.\n',
    );
    const stream = await api('approvalEvents', '--user', 'cleo');
    expect(stream.code).toBe(1);
    expect(stream.stderr).toMatch(
      /^holdpoint: VALIDATION_FAILED: approvalEvents answers only with a stream \(text\/event-stream\), not JSON/,
    );
    const wrong = await api('getMe', 'extra');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('usage: holdpoint api [OPERATION');
    // What it does not take is named: a misspelt flag is not left to find in the usage.
    expect(wrong.stderr).toMatch(
      /^holdpoint: VALIDATION_FAILED: holdpoint api takes no extra; usage: /,
    );
    const misspelt = await api('getMe', '--parm', 'id=1');
    expect(misspelt.stderr).toMatch(
      /^holdpoint: VALIDATION_FAILED: holdpoint api takes no --parm; usage: /,
    );
  });

  it('says, in one line without the usage, a body file it cannot read and a server it cannot reach', async () => {
    const unread = await api('startRun', '--user', 'cleo', '--body', '@/tmp/hp-no-such-body.json');
    expect(unread).toMatchObject({ code: 1, stdout: '' });
    expect(unread.stderr).toMatch(
      /^holdpoint: VALIDATION_FAILED: --body @\/tmp\/hp-no-such-body\.json: cannot read \/tmp\/hp-no-such-body\.json \(ENOENT\)\.\n$/,
    );
    // Nothing listens on port 1 (and fetch refuses it): the request cannot be made.
    const unreached = await apiAt('http://127.0.0.1:1', 'getMe', '--user', 'cleo');
    expect(unreached).toMatchObject({ code: 1, stdout: '' });
    expect(unreached.stderr).toMatch(
      /^holdpoint: Cannot reach the Holdpoint server at http:\/\/127\.0\.0\.1:1: [^\n]+\n$/,
    );
  });

  it('refuses --token with --user or --roles: one or the other, not one silently dropped', async () => {
    const both = await api('getMe', '--user', 'cleo', '--token', 'hp_whatever');
    expect(both).toMatchObject({ code: 1, stdout: '' });
    expect(both.stderr).toBe(
      'holdpoint: VALIDATION_FAILED: --token or --user with --roles, not both: --user names the caller of a server in dev mode, --token signs in to any other.\n',
    );
  });
});
