import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { JsonClient } from './support/json-client.js';
import { ServerProcess } from './support/server-process.js';

// Real OS processes start slowly on a loaded 2-core machine; they are bounded by these
// limits, not timed by them.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

// Issue 32, point 1, as a user runs it: `holdpoint serve --app` on the default SQLite
// store, a run paused inside an AgentTool, the server killed (SIGKILL) before each
// decision, a new process deciding. The effect of the approved move is counted outside
// Holdpoint (a line per effect in AGENT_TOOL_EFFECTS_FILE).

const FIXTURES = 'test/fixtures/apps/agent-tools';
const dataDir = mkdtempSync(join(tmpdir(), 'hp-agent-tool-restarts-'));
const effects = join(dataDir, 'effects.log');
const running: ServerProcess[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.kill('SIGKILL')));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** A server for `app` on the shared data directory: the previous one is killed first. */
async function restart(app: string): Promise<ServerProcess> {
  await Promise.all(running.splice(0).map((s) => s.kill('SIGKILL')));
  const server = await ServerProcess.start(
    ['--app', `${FIXTURES}/${app}.ts`, '--data-dir', dataDir, '--model', 'rules'],
    { AGENT_TOOL_EFFECTS_FILE: effects },
  );
  running.push(server);
  return server;
}

/** ann asks (and owns her sessions); maria is an approver. */
const ann = (server: ServerProcess) => new JsonClient(server.url, { user: 'ann', roles: [] });
const maria = (server: ServerProcess) =>
  new JsonClient(server.url, { user: 'maria', roles: ['approver'] });

function effectLines(): string[] {
  return existsSync(effects) ? readFileSync(effects, 'utf8').split('\n').filter(Boolean) : [];
}

describe('a run paused inside an AgentTool, its server killed before each decision', () => {
  it("seed 004's picker behind an AgentTool: both answers, each on a new process", async () => {
    const start = await ann(await restart('picker-tool')).post('/api/agent/start', {
      query: 'pick a fruit',
    });
    expect(start.body).toMatchObject({
      status: 'pending_approval',
      approvals: [{ kind: 'input', tool_name: 'select_item' }],
    });

    const select = start.body.approvals[0].approval_id;
    const confirm = await ann(await restart('picker-tool')).post(`/api/approvals/${select}`, {
      approved: true,
      payload: { item: 'Cherry' },
    });
    expect(confirm.body).toMatchObject({
      status: 'pending_approval',
      invocation_id: start.body.invocation_id,
      approvals: [{ tool_name: 'confirm_choice', args: { item: 'Cherry' } }],
    });

    const done = await ann(await restart('picker-tool')).post(
      `/api/approvals/${confirm.body.approvals[0].approval_id}`,
      { approved: true, payload: { confirmed: true } },
    );
    expect(done.body).toMatchObject({
      status: 'completed',
      invocation_id: start.body.invocation_id,
      result: 'root got {"result":"You picked Cherry, and it is confirmed."}',
    });
  });

  it('a confirmation tool behind an AgentTool: approved on a new process, its effect once', async () => {
    const start = await ann(await restart('mover-tool')).post('/api/agent/start', {
      query: 'move 42',
    });
    expect(start.body).toMatchObject({
      status: 'pending_approval',
      approvals: [{ kind: 'confirmation', tool_name: 'move_money', args: { amount: 42 } }],
    });
    expect(effectLines()).toEqual([]);

    const server = await restart('mover-tool');
    const approval = `/api/approvals/${start.body.approvals[0].approval_id}`;
    const refused = await ann(server).post(approval, { approved: true });
    expect(refused.status).toBe(403);
    const done = await maria(server).post(approval, { approved: true });
    expect(done.body).toMatchObject({
      status: 'completed',
      result: 'root got {"result":"mover: {\\"moved\\":42}"}',
    });
    const again = await maria(server).post(approval, { approved: true });
    expect(again.status).toBe(409);
    expect(effectLines()).toHaveLength(1);
  });

  it('an AgentTool inside a SequentialAgent step: the next step waits for the decision on a new process', async () => {
    const start = await ann(await restart('sequential-tool')).post('/api/agent/start', {
      query: 'move 5',
    });
    expect(start.body).toMatchObject({
      status: 'pending_approval',
      approvals: [{ tool_name: 'move_money', args: { amount: 5 } }],
    });
    expect(start.body.result ?? '').not.toContain('Reported');

    const before = effectLines().length;
    const done = await ann(await restart('sequential-tool')).post(
      `/api/approvals/${start.body.approvals[0].approval_id}`,
      { approved: true },
    );
    expect(done.body).toMatchObject({
      status: 'completed',
      invocation_id: start.body.invocation_id,
      result: 'move_step got {"result":"mover: {\\"moved\\":5}"}\n\nReported the move.',
    });
    expect(effectLines()).toHaveLength(before + 1);
  });
});
