import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freePort } from './support/free-port.js';
import { JsonClient } from './support/json-client.js';
import { ServerProcess } from './support/server-process.js';

// Issue 36, point 3 (a): the tools an app gets from an MCP server (ADK's MCPToolset) are
// gated by the app's approvals like its own — by tool name — with the call's arguments
// bound to the decision; against a real MCP server the test starts, over stdio and over
// streamable HTTP, which counts every call it runs (a line each in MCP_CALLS_FILE).
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

const APP = fileURLToPath(new URL('./fixtures/apps/mcp-billing.ts', import.meta.url));
const MCP_SERVER = fileURLToPath(new URL('./fixtures/mcp/billing-server.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'hp-mcp-'));
const started: (ServerProcess | ChildProcess)[] = [];

afterAll(async () => {
  for (const process of started) {
    if (process instanceof ServerProcess) await process.kill();
    else process.kill();
  }
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The billing MCP server over streamable HTTP, in a process of its own; its URL. A port
 * found free can be taken before the server listens on it: it then starts on another.
 */
async function httpMcpServer(calls: string, attempt = 1): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', MCP_SERVER, '--http', String(port)], {
    env: { ...process.env, MCP_CALLS_FILE: calls },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  started.push(child);
  const listening = await new Promise<boolean>((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve(true);
    });
    child.once('exit', () => resolve(false));
  });
  if (listening) return `http://127.0.0.1:${port}/mcp`;
  if (attempt === 3) throw new Error('the MCP server did not start');
  return httpMcpServer(calls, attempt + 1);
}

/** The MCP server's calls so far: `<tool> <arguments as JSON>` each. */
const callsIn = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];

describe.each(['stdio', 'streamable HTTP'])('tools from an MCP server over %s', (transport) => {
  it('each call of a named tool waits for an approver; the approved one runs once, as edited', async () => {
    const calls = join(dir, `calls-${transport.replace(' ', '-')}.log`);
    const env: Record<string, string> = { MCP_CALLS_FILE: calls };
    if (transport !== 'stdio') env.MCP_BILLING_URL = await httpMcpServer(calls);
    const server = await ServerProcess.start(
      ['--app', APP, '--model', 'rules', '--store', 'memory'],
      env,
    );
    started.push(server);
    const ann = new JsonClient(server.url, { user: 'ann', roles: [] });
    const maria = new JsonClient(server.url, { user: 'maria', roles: ['approver'] });

    const asked = await ann.post('/api/agent/start', {
      app: 'mcp-billing',
      query: 'Refund $30 to Ana',
    });
    expect(asked.body).toMatchObject({
      status: 'pending_approval',
      approvals: [
        { tool_name: 'refund', hint: 'Refund 30 to Ana?', args: { amount: 30, customer: 'Ana' } },
      ],
    });
    expect(callsIn(calls)).toEqual([]);
    const [approval] = asked.body.approvals;

    // The requester may not approve: nothing runs.
    const own = await ann.post(`/api/approvals/${approval.approval_id}`, { approved: true });
    expect(own.status).toBe(403);
    // Arguments other than those seen are refused: the decision is bound to them.
    const stale = await maria.post(`/api/approvals/${approval.approval_id}`, {
      approved: true,
      args_hash: 'sha256:0000',
    });
    expect(stale.body.error.code).toBe('ARGS_MISMATCH');
    expect(callsIn(calls)).toEqual([]);

    const approved = await maria.post(`/api/approvals/${approval.approval_id}`, {
      approved: true,
      args_hash: approval.args_hash,
      edited_args: { amount: 25, customer: 'Ana' },
    });
    expect(approved.body).toMatchObject({ status: 'completed' });
    expect(approved.body.result).toContain('Refunded 25 to Ana.');
    expect(callsIn(calls)).toEqual(['refund {"amount":25,"customer":"Ana"}']);

    // A rejection: the tool never runs, and the model reads why.
    const second = await ann.post('/api/agent/start', {
      app: 'mcp-billing',
      query: 'Refund $40 to Bo',
    });
    const rejected = await maria.post(`/api/approvals/${second.body.approvals[0].approval_id}`, {
      approved: false,
      reason: 'Bo was refunded already',
    });
    expect(rejected.body).toMatchObject({ status: 'completed' });
    expect(rejected.body.result).toContain('Bo was refunded already');
    expect(callsIn(calls)).toHaveLength(1);

    // A tool the approvals do not name runs at once.
    const balance = await ann.post('/api/agent/start', {
      app: 'mcp-billing',
      query: 'balance of Ana',
    });
    expect(balance.body).toMatchObject({ status: 'completed' });
    expect(callsIn(calls)).toEqual([
      'refund {"amount":25,"customer":"Ana"}',
      'balance {"customer":"Ana"}',
    ]);
  });
});

describe('tools from an MCP server, named by server', () => {
  it("every tool of a server the approvals name ('billing_*') waits, under that policy", async () => {
    const calls = join(dir, 'calls-by-server.log');
    const server = await ServerProcess.start(
      ['--app', APP, '--model', 'rules', '--store', 'memory'],
      { MCP_CALLS_FILE: calls, MCP_BY_SERVER: '1' },
    );
    started.push(server);
    const ann = new JsonClient(server.url, { user: 'ann', roles: [] });
    const maria = new JsonClient(server.url, { user: 'maria', roles: ['approver'] });
    const asked = await ann.post('/api/agent/start', {
      app: 'mcp-billing',
      query: 'balance of Ana',
    });
    expect(asked.body).toMatchObject({
      status: 'pending_approval',
      approvals: [
        {
          tool_name: 'billing_balance',
          hint: "Read Ana's balance?",
          approvers: { roles: ['approver'], requester_may_approve: false },
        },
      ],
    });
    expect(callsIn(calls)).toEqual([]);
    const approval = asked.body.approvals[0].approval_id;
    expect((await ann.post(`/api/approvals/${approval}`, { approved: true })).status).toBe(403);
    const approved = await maria.post(`/api/approvals/${approval}`, { approved: true });
    expect(approved.body).toMatchObject({ status: 'completed' });
    // The server is called by the tool's own name, once.
    expect(callsIn(calls)).toEqual(['balance {"customer":"Ana"}']);
  });
});

describe('tools from an MCP server, across a restart', () => {
  it('a call paused before a crash runs once, after the approval on a new process', async () => {
    const calls = join(dir, 'calls-restart.log');
    const data = join(dir, 'data-restart');
    const args = ['--app', APP, '--model', 'rules', '--data-dir', data];
    const first = await ServerProcess.start(args, { MCP_CALLS_FILE: calls });
    started.push(first);
    const asked = await new JsonClient(first.url, { user: 'ann', roles: [] }).post(
      '/api/agent/start',
      { app: 'mcp-billing', query: 'Refund $12 to Ana' },
    );
    expect(asked.body.status).toBe('pending_approval');
    await first.kill('SIGKILL');

    const second = await ServerProcess.start(args, { MCP_CALLS_FILE: calls });
    started.push(second);
    const maria = new JsonClient(second.url, { user: 'maria', roles: ['approver'] });
    const approved = await maria.post(`/api/approvals/${asked.body.approvals[0].approval_id}`, {
      approved: true,
    });
    expect(approved.body).toMatchObject({ status: 'completed' });
    expect(callsIn(calls)).toEqual(['refund {"amount":12,"customer":"Ana"}']);
  });
});
