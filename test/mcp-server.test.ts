import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import { JsonClient, signedInAs } from './support/json-client.js';
import { restartingServer } from './support/restarting-server.js';
import { ServerProcess } from './support/server-process.js';

// Issue 36, point 3 (b), its first part: an app offered as an MCP server, with MCP's
// official client (`@modelcontextprotocol/sdk`'s Client over streamable HTTP), against
// `holdpoint serve` in its own process on the default SQLite store. A client without
// elicitation: the tool answers a pause with the pending approval and where it is
// decided; a later call with the session id, after a restart and the decision, gets the
// outcome.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

const restart = restartingServer('mcp-server');

/**
 * MCP's official client of `app`'s server, signed in as `user`; with `answer`, it takes
 * forms (elicitation) and answers each with it, recording what it was asked.
 */
async function mcpClient(
  server: ServerProcess,
  user: string,
  roles: string[] = [],
  app = 'payments',
  answer?: (message: string, url?: string) => ElicitResult | Promise<ElicitResult>,
  takes: 'form' | 'url' = 'form',
) {
  const client = new Client(
    { name: 'test', version: '1.0.0' },
    answer ? { capabilities: { elicitation: { [takes]: {} } } } : {},
  );
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      const { params } = request;
      return answer(params.message, params.mode === 'url' ? params.url : undefined);
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp/${app}`), {
    requestInit: { headers: signedInAs(user, roles) },
  });
  await client.connect(transport);
  return Object.assign(client, { asked });
}

type Answer = { status: string; session_id: string; result?: string; [k: string]: unknown };

describe('MCP: an app as an MCP server, with the official client', () => {
  it('answers a pause with its approval; after a restart and the decision, with the outcome', async () => {
    let server = await restart();
    const ann = await mcpClient(server, 'ann');
    const { tools } = await ann.listTools();
    expect(tools.map((t) => t.name)).toEqual(['payments']);
    expect(tools[0]?.inputSchema.properties).toHaveProperty('message');

    const asked = await ann.callTool({
      name: 'payments',
      arguments: { message: 'Send $200 to Jiro' },
    });
    expect(asked.isError).toBeFalsy();
    const pending = asked.structuredContent as Answer;
    expect(pending).toMatchObject({
      status: 'pending_approval',
      approvals: [
        {
          hint: 'Send 200 USD to Jiro?',
          tool: 'process_payment',
          approvers: { roles: ['approver'], requesterMayApprove: false },
        },
      ],
      decide_at: `${server.url}/approvals`,
    });
    expect(JSON.stringify(asked.content)).toContain('Waiting for a person');
    const approvalId = (pending.approvals as { approvalId: string }[])[0]?.approvalId;

    server = await restart();
    const maria = new JsonClient(server.url, { user: 'maria', roles: ['approver'] });
    expect((await maria.post(`/api/approvals/${approvalId}`, { approved: true })).body.status).toBe(
      'completed',
    );
    const again = await mcpClient(server, 'ann');
    const outcome = await again.callTool({
      name: 'payments',
      arguments: { session_id: pending.session_id },
    });
    expect(outcome.structuredContent).toMatchObject({
      status: 'completed',
      session_id: pending.session_id,
      result: expect.stringContaining('Sent 200 USD to Jiro'),
    });
    await again.close();
  });

  it('refuses with a tool error led by the stable code; bad requests change nothing', async () => {
    const server = await restart();
    const sessionsOf = async () =>
      (await new JsonClient(server.url, { user: 'ann', roles: [] }).get('/api/sessions')).body
        .sessions;
    const ann = await mcpClient(server, 'ann');
    const started = await ann.callTool({
      name: 'payments',
      arguments: { message: 'Send $5 to Bo' },
    });
    const sessionId = (started.structuredContent as Answer).session_id;
    const before = await sessionsOf();
    const empty = await ann.callTool({ name: 'payments', arguments: {} });
    expect(empty.isError).toBe(true);
    expect(JSON.stringify(empty.content)).toContain('VALIDATION_FAILED');
    const eve = await mcpClient(server, 'eve');
    const theirs = await eve.callTool({ name: 'payments', arguments: { session_id: sessionId } });
    expect(theirs.isError).toBe(true);
    expect(JSON.stringify(theirs.content)).toContain('FORBIDDEN');

    const post = (path: string, body: string) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: {
          ...signedInAs('ann'),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body,
      });
    expect((await post('/api/mcp/nope', '{"jsonrpc":"2.0","id":1,"method":"ping"}')).status).toBe(
      400,
    );
    expect((await post('/api/mcp/payments', '{"jsonrpc":')).status).toBe(400);
    const deep = `${'['.repeat(4000)}${']'.repeat(4000)}`;
    expect(
      (
        await post(
          '/api/mcp/payments',
          `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${deep}}`,
        )
      ).status,
    ).toBe(400);
    const bad = await post(
      '/api/mcp/payments',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"payments","arguments":{"message":7}}}',
    );
    expect(bad.status).toBeLessThan(500);
    expect(await sessionsOf()).toEqual(before);
  });

  it('asks a client that takes forms, when its user may decide: the call completes with the answer', async () => {
    const server = await restart();
    const auditor = new JsonClient(server.url, { user: 'auditor', roles: ['admin'] });
    const approving = await mcpClient(server, 'ann', [], 'image-studio', () => ({
      action: 'accept',
      content: { approved: true },
    }));
    const done = await approving.callTool({
      name: 'image-studio',
      arguments: { message: 'Generate 10 images' },
    });
    expect(approving.asked).toHaveLength(1);
    const answer = done.structuredContent as Answer;
    expect(answer).toMatchObject({
      status: 'completed',
      result: expect.stringContaining('10 images'),
    });
    // The MCP session it was asked on is ann's only: another caller is not found there.
    const mcpSession = (approving.transport as StreamableHTTPClientTransport).sessionId ?? '';
    expect(mcpSession).not.toBe('');
    const hijack = await fetch(`${server.url}/api/mcp/image-studio`, {
      method: 'POST',
      headers: {
        ...signedInAs('eve'),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': mcpSession,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(404);
    const audit = await auditor.get(`/api/audit?session_id=${answer.session_id}`);
    expect(audit.body.entries).toContainEqual(
      expect.objectContaining({ action: 'decided', approved: true, actor: 'ann', channel: 'mcp' }),
    );

    // Declined: a rejection the agent reads; cancelled: it waits, durably, as without forms.
    const declining = await mcpClient(server, 'ann', [], 'image-studio', () => ({
      action: 'decline',
    }));
    const declined = await declining.callTool({
      name: 'image-studio',
      arguments: { message: 'Generate 10 images' },
    });
    const rejected = declined.structuredContent as Answer;
    expect(rejected.status).toBe('completed');
    const lines = (await auditor.get(`/api/audit?session_id=${rejected.session_id}`)).body.entries;
    expect(lines).toContainEqual(
      expect.objectContaining({
        action: 'decided',
        approved: false,
        reason: 'Declined in the MCP client.',
      }),
    );
    const cancelling = await mcpClient(server, 'ann', [], 'image-studio', () => ({
      action: 'cancel',
    }));
    const waiting = await cancelling.callTool({
      name: 'image-studio',
      arguments: { message: 'Generate 10 images' },
    });
    expect(waiting.structuredContent).toMatchObject({ status: 'pending_approval' });
  });

  it('asks nobody who may not decide: the requester of a payment is told where it is decided', async () => {
    const server = await restart();
    const ann = await mcpClient(server, 'ann', [], 'payments', () => ({
      action: 'accept',
      content: { approved: true },
    }));
    const asked = await ann.callTool({ name: 'payments', arguments: { message: 'Send $9 to Bo' } });
    expect(ann.asked).toEqual([]);
    expect(asked.structuredContent).toMatchObject({ status: 'pending_approval' });
  });

  it('sends a client that takes URLs to its signed decision link, and completes once it is used', async () => {
    const PUBLIC_URL = 'https://holdpoint.example.com';
    const server = await ServerProcess.start([
      '--model',
      'rules',
      '--store',
      'memory',
      '--public-url',
      PUBLIC_URL,
      '--link-secret',
      'mcp-url-elicitation-secret-0123456789',
      // Links are made for people a channel reaches: one that is never reached will do.
      '--smtp-url',
      'smtp://127.0.0.1:1',
    ]);
    try {
      const links: string[] = [];
      const ann = await mcpClient(
        server,
        'ann',
        [],
        'image-studio',
        async (_message, url) => {
          links.push(url ?? '');
          // Ann opens the link and approves on its page, as her browser would post it.
          const { pathname } = new URL(url ?? '');
          const decided = await fetch(`${server.url}${pathname}`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PUBLIC_URL },
            body: new URLSearchParams({ decision: 'approve' }).toString(),
          });
          expect(decided.status).toBe(200);
          return { action: 'accept' };
        },
        'url',
      );
      const done = await ann.callTool({
        name: 'image-studio',
        arguments: { message: 'Generate 10 images' },
      });
      expect(links).toEqual([expect.stringMatching(`^${PUBLIC_URL}/decide/`)]);
      const answer = done.structuredContent as Answer;
      expect(answer).toMatchObject({
        status: 'completed',
        result: expect.stringContaining('10 images'),
      });
      const audit = await new JsonClient(server.url, { user: 'auditor', roles: ['admin'] }).get(
        `/api/audit?session_id=${answer.session_id}`,
      );
      expect(audit.body.entries).toContainEqual(
        expect.objectContaining({
          action: 'decided',
          approved: true,
          actor: 'ann',
          channel: 'link',
        }),
      );
    } finally {
      await server.kill();
    }
  });
});
