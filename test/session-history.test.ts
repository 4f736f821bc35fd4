import type { UIMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { exampleConfig } from './support/example-apps.js';
import { JsonClient } from './support/json-client.js';

let server: RunningServer;
let api: JsonClient;

beforeAll(async () => {
  server = await startServer(exampleConfig());
  api = new JsonClient(`http://127.0.0.1:${server.port}`);
});
afterAll(async () => server.close());

type Part = {
  type: string;
  state?: string;
  text?: string;
  approval?: { id: string; approved?: boolean };
  output?: unknown;
};
const parts = (message: UIMessage) => message.parts as unknown as Part[];
const tools = (message: UIMessage) => parts(message).filter((p) => p.type.startsWith('tool-'));

async function history(
  sessionId: string,
): Promise<{ status: string; messages: UIMessage[]; pending_approvals: unknown[] }> {
  const response = await api.get(`/api/sessions/${sessionId}/messages`);
  expect(response.status).toBe(200);
  return response.body;
}

describe('GET /api/sessions/:id/messages: the conversation as UI messages, for reloads', () => {
  it('a pending approval comes back as the tool part in approval-requested, with its expiry', async () => {
    const start = await api.post('/api/agent/start', {
      query: 'Generate 10 images',
      user_id: 'reload',
    });
    const body = await history(start.body.session_id);
    expect(body.status).toBe('paused');
    expect(body.pending_approvals).toHaveLength(1);
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const [tool] = tools(body.messages[1] as UIMessage);
    expect(tool).toMatchObject({
      type: 'tool-request_image_generation',
      state: 'approval-requested',
      approval: { id: start.body.approvals[0].approval_id },
    });
    expect(body.messages[1]?.metadata).toMatchObject({
      sessionId: start.body.session_id,
      invocationId: start.body.invocation_id,
      status: 'paused',
      expiresAt: start.body.expires_at,
    });

    await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      pause_id: start.body.pause_id,
      approved: true,
    });
    const after = await history(start.body.session_id);
    const done = after.messages[1] as UIMessage;
    expect(tools(done)[0]).toMatchObject({
      state: 'output-available',
      approval: { approved: true },
    });
    expect(
      (tools(done)[0]?.output as { artifacts?: string[] } | undefined)?.artifacts,
    ).toHaveLength(10);
    expect(parts(done).find((p) => p.type === 'text')?.text).toContain('Here are the 10 images');
    expect(done.metadata).toMatchObject({ status: 'completed' });
  });

  it('rejections, cancellations and several turns', async () => {
    const first = await api.post('/api/agent/start', {
      query: 'Send $20 to Ana',
      user_id: 'reload',
      app: 'payments',
    });
    await api.post('/api/agent/resume', {
      session_id: first.body.session_id,
      pause_id: first.body.pause_id,
      approved: false,
    });
    await api.post('/api/agent/start', {
      query: 'Send $30 to Bob',
      user_id: 'reload',
      session_id: first.body.session_id,
    });
    await api.post('/api/agent/cancel', { session_id: first.body.session_id });
    await api.post('/api/agent/start', {
      query: 'Send $40 to Kim',
      user_id: 'reload',
      session_id: first.body.session_id,
    });
    const body = await history(first.body.session_id);
    expect(body.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(tools(body.messages[1] as UIMessage)[0]?.state).toBe('output-denied');
    expect(tools(body.messages[3] as UIMessage)[0]?.state).toBe('output-denied');
    expect(tools(body.messages[5] as UIMessage)[0]?.state).toBe('approval-requested');
  });

  it('picker input answers come back as tool outputs', async () => {
    const start = await api.post('/api/agent/start', {
      query: 'Pick a fruit',
      user_id: 'reload',
      app: 'picker',
    });
    const select = start.body.approvals[0];
    await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      decisions: [{ approval_id: select.approval_id, approved: true, payload: { item: 'Cherry' } }],
    });
    const body = await history(start.body.session_id);
    const states = tools(body.messages[1] as UIMessage).map((p) => [p.type, p.state]);
    expect(states).toEqual([
      ['tool-select_item', 'output-available'],
      ['tool-confirm_choice', 'input-available'],
    ]);
    expect(tools(body.messages[1] as UIMessage)[0]?.output).toEqual({ item: 'Cherry' });
  });

  it('an unknown session is 404 SESSION_NOT_FOUND', async () => {
    const response = await api.get('/api/sessions/nope/messages');
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('SESSION_NOT_FOUND');
  });
});
