import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JsonClient } from './support/json-client.js';
import { type Ended, runToEnd } from './support/run-to-end.js';
import { ServerProcess } from './support/server-process.js';

// Real OS processes start slowly on a loaded 2-core machine; they are bounded by these
// limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

// `holdpoint grants list` and `holdpoint grants revoke` against a running server, over
// its REST API: a person lists their grants and revokes one, after which the tool asks
// again; an admin lists someone else's; anyone else is refused.
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

/** `holdpoint grants <args>` against the server, to its end: exit code and output. */
function grants(...args: string[]): Promise<Ended> {
  return runToEnd(process.execPath, [BIN, 'grants', ...args, '--url', server.url], {
    env: { LOG_LEVEL: 'silent' },
  });
}

/** `user` asks for `query` and approves it with a grant: the grant's id. */
async function granted(user: string, query: string): Promise<string> {
  const client = new JsonClient(server.url, { user });
  const asked = await client.post('/api/agent/start', { app: 'grants', query });
  const [approval] = asked.body.approvals;
  const decided = await client.post(`/api/approvals/${approval.approval_id}`, {
    approved: true,
    args_hash: approval.args_hash,
    grant: { scope: 'user', hours: 2, match: { amount: { lte: 10 } } },
  });
  expect(decided.status).toBe(200);
  const listed = await client.get('/api/grants');
  return listed.body.grants[0].grant_id;
}

describe('holdpoint grants', () => {
  it('lists the caller’s grants, revokes one, and the tool asks again', async () => {
    expect(await grants('list', '--user', 'cleo')).toMatchObject({
      code: 0,
      output: 'No grants.\n',
    });
    const grantId = await granted('cleo', 'tip 5 jiro');
    const listed = await grants('list', '--user', 'cleo');
    expect(listed.code).toBe(0);
    expect(listed.output).toMatch(
      new RegExp(
        `^${grantId} {2}in force until \\S+\\n {2}tip \\(grants\\) in every session of cleo, calls matching \\{"amount":\\{"lte":10\\}\\}; granted by cleo at \\S+\\n$`,
      ),
    );

    const revoked = await grants('revoke', grantId, '--user', 'cleo');
    expect(revoked.code).toBe(0);
    expect(revoked.output).toMatch(new RegExp(`^Revoked:\\n${grantId} {2}revoked by cleo at `));
    expect((await grants('list', '--user', 'cleo')).output).toContain('revoked by cleo');
    const again = await new JsonClient(server.url, { user: 'cleo' }).post('/api/agent/start', {
      app: 'grants',
      query: 'tip 7 mia',
    });
    expect(again.body.status).toBe('pending_approval');
  });

  it('lists another user’s grants for an admin only; revoking someone else’s is not found', async () => {
    const grantId = await granted('dora', 'tip 3 jiro');
    const admin = await grants('list', '--of', 'dora', '--user', 'root', '--roles', 'admin');
    expect(admin.code).toBe(0);
    expect(admin.output).toContain(`${grantId}  in force until`);
    const other = await grants('list', '--of', 'dora', '--user', 'eve');
    expect(other.code).toBe(1);
    expect(other.output).toContain('holdpoint: FORBIDDEN');
    const revoke = await grants('revoke', grantId, '--user', 'eve');
    expect(revoke.code).toBe(1);
    expect(revoke.output).toContain('holdpoint: GRANT_NOT_FOUND');
  });

  it('says how to use it when given wrong', async () => {
    const wrong = await grants('revoke');
    expect(wrong.code).toBe(1);
    expect(wrong.output).toContain('usage: holdpoint grants list [--of USER]');
  });
});
