import {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
import {
  Client,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { describe, expect, it, vi } from 'vitest';
import { JsonClient, signedInAs } from './support/json-client.js';
import { restartingServer } from './support/restarting-server.js';
import type { ServerProcess } from './support/server-process.js';

// Issue 36, point 2, with A2A's official SDK (`@a2a-js/sdk` 1.3.0: its client, in A2A 1.0
// and over its v0.3 transport) against `holdpoint serve` in its own process on the default
// SQLite store: the payments app, whose payments wait for an approver who is not the one
// asking, and whose approvers may edit them.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

/** A server on this file's data directory: the one running before is killed (SIGKILL) first. */
const restart = restartingServer('a2a');

const endpoint = (server: ServerProcess) => `${server.url}/api/a2a/payments`;
const cardUrl = (server: ServerProcess) => `${endpoint(server)}/.well-known/agent-card.json`;

/** A fetch that signs every request in as `user` with `roles` (the server's dev sign-in). */
function signedFetch(user: string, roles: string[]): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(signedInAs(user, roles))) headers.set(name, value);
    return fetch(input, { ...init, headers });
  };
}

/** The official client of the payments agent, as `user`: A2A 1.0 (from the card), or 0.3. */
async function client(
  server: ServerProcess,
  user: string,
  roles: string[] = [],
  version: '1.0' | '0.3' = '1.0',
): Promise<Client> {
  const fetchImpl = signedFetch(user, roles);
  if (version === '0.3') {
    const card = AgentCard.fromJSON(await (await fetch(cardUrl(server))).json());
    return new Client(new LegacyJsonRpcTransport({ endpoint: endpoint(server), fetchImpl }), card);
  }
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
  });
  return new ClientFactory(options).createFromUrl(cardUrl(server), '');
}

let sent = 0;
/** A message in A2A's JSON form: text asks, data decides; `taskId` continues a task. */
const message = (parts: object[], taskId?: string) =>
  SendMessageRequest.fromJSON({
    message: { messageId: `m-${++sent}`, role: 'ROLE_USER', parts, ...(taskId ? { taskId } : {}) },
  });
const ask = (text: string) => message([{ text }]);
const decide = (taskId: string, decision: object) => message([{ data: decision }], taskId);

/** The task a send answered (this agent always answers with its task). */
function taskOf(result: unknown): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}

/** The approvals an input-required task offers, from its structured part. */
function approvalsOf(task: Task): { approvalId: string; argsHash: string; [k: string]: unknown }[] {
  expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const data = task.status?.message?.parts.find((p) => p.content?.$case === 'data');
  return data?.content?.$case === 'data' ? data.content.value.approvals : [];
}

const textOf = (task: Task) =>
  task.status?.message?.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .join('');

/** The Holdpoint code a JSON-RPC error carries (its ErrorInfo's metadata), else its message. */
async function refusal(promise: Promise<unknown>): Promise<string | undefined> {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as { data?: { metadata?: Record<string, string> }[]; message?: string } | undefined;
  expect(error, 'the request was refused').toBeDefined();
  return error?.data?.[0]?.metadata?.holdpoint_code ?? error?.message;
}

const auditor = (server: ServerProcess) =>
  new JsonClient(server.url, { user: 'auditor', roles: ['admin'] });

async function decidedLines(server: ServerProcess, taskId: string) {
  const audit = await auditor(server).get(`/api/audit?session_id=${taskId}`);
  return audit.body.entries.filter((e: { action: string }) => e.action === 'decided');
}

describe('A2A: each app an A2A agent, with the official SDK', () => {
  it('serves its agent card to anyone, in A2A 1.0 and 0.3', async () => {
    const server = await restart();
    const response = await fetch(cardUrl(server));
    expect(response.status).toBe(200);
    const card = AgentCard.fromJSON(await response.json());
    expect(card).toMatchObject({
      name: 'Payments',
      capabilities: { streaming: true, pushNotifications: false },
      supportedInterfaces: [
        { url: endpoint(server), protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: endpoint(server), protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
      skills: [{ id: 'payments', examples: expect.arrayContaining(['Send $200 to Jiro']) }],
    });
  });

  it('a pause is input-required; the requester is refused; after a restart an approver edits it', async () => {
    let server = await restart();
    const ann = await client(server, 'ann');
    const asked = taskOf(await ann.sendMessage(ask('Send $200 to Jiro')));
    const [approval] = approvalsOf(asked);
    expect(textOf(asked)).toBe('Send 200 USD to Jiro?');
    expect(approval).toMatchObject({
      tool: 'process_payment',
      args: { amount: 200, currency: 'USD', recipient: 'Jiro' },
      approvers: { roles: ['approver'], requesterMayApprove: false },
    });
    const taskId = asked.id;
    const approvalId = approval?.approvalId ?? '';

    // The agent that asked may not approve its own payment: nothing is recorded.
    expect(await refusal(ann.sendMessage(decide(taskId, { approved: true })))).toBe('FORBIDDEN');

    server = await restart();
    const maria = await client(server, 'maria', ['approver']);
    const after = await maria.getTask(GetTaskRequest.fromJSON({ id: taskId }));
    expect(approvalsOf(after).map((a) => a.approvalId)).toEqual([approvalId]);

    const edited = { amount: 150, currency: 'USD', recipient: 'Jiro' };
    const done = taskOf(
      await maria.sendMessage(
        decide(taskId, { approved: true, argsHash: approval?.argsHash, editedArgs: edited }),
      ),
    );
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done)).toContain('Sent 150 USD to Jiro');
    const owner = await client(server, 'ann');
    const stands = await owner.getTask(GetTaskRequest.fromJSON({ id: taskId }));
    expect(stands.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(await decidedLines(server, taskId)).toEqual([
      expect.objectContaining({ approval_id: approvalId, actor: 'maria', channel: 'a2a' }),
    ]);

    // A second answer, from another approver: ALREADY_DECIDED, as an A2A error.
    const bob = await client(server, 'bob', ['approver']);
    expect(await refusal(bob.sendMessage(decide(taskId, { approvalId, approved: false })))).toBe(
      'ALREADY_DECIDED',
    );
  });

  it('a rejection with its reason, over the v0.3 wire (message/send, tasks/get)', async () => {
    const server = await restart();
    const ann = await client(server, 'ann', [], '0.3');
    const asked = taskOf(await ann.sendMessage(ask('Send 50 EUR to Ana')));
    const [approval] = approvalsOf(asked);
    const maria = await client(server, 'maria', ['approver'], '0.3');
    const reason = 'Ana was paid already';
    const done = taskOf(
      await maria.sendMessage(
        decide(asked.id, { approvalId: approval?.approvalId, approved: false, reason }),
      ),
    );
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done)).not.toContain('Sent');
    const got = await ann.getTask(GetTaskRequest.fromJSON({ id: asked.id }));
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(await decidedLines(server, asked.id)).toEqual([
      expect.objectContaining({ approved: false, reason, channel: 'a2a' }),
    ]);
  });

  it('streams the task, then its input-required status; the owner cancels it, once', async () => {
    const server = await restart();
    const ann = await client(server, 'ann');
    const events: StreamResponse[] = [];
    for await (const event of ann.sendMessageStream(ask('Send $20 to Bo'))) events.push(event);
    expect(events.map((e) => e.payload?.$case)).toEqual(['task', 'statusUpdate']);
    const last = events.at(-1)?.payload;
    const taskId = last?.$case === 'statusUpdate' ? last.value.taskId : '';
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
    const cancelled = await ann.cancelTask(CancelTaskRequest.fromJSON({ id: taskId }));
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(await refusal(ann.cancelTask(CancelTaskRequest.fromJSON({ id: taskId })))).toMatch(
      /not waiting for people/,
    );
    const audit = await auditor(server).get(`/api/audit?session_id=${taskId}`);
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toContain('cancelled');
  });

  it('refuses bad input with JSON-RPC errors and changes nothing', async () => {
    const server = await restart();
    const ann = new JsonClient(server.url, { user: 'ann', roles: [] });
    const before = (await ann.get('/api/sessions')).body.sessions;
    const rpc = (body: unknown, version?: string) =>
      fetch(endpoint(server), {
        method: 'POST',
        headers: {
          ...signedInAs('ann'),
          'content-type': 'application/json',
          ...(version ? { 'A2A-Version': version } : {}),
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const cases: [unknown, string | undefined, number][] = [
      [{ jsonrpc: '1.0', id: 1, method: 'message/send', params: {} }, undefined, -32600],
      [{ jsonrpc: '2.0', id: 2, method: 'nope', params: {} }, undefined, -32601],
      [
        { jsonrpc: '2.0', id: 3, method: 'message/send', params: { message: 'hi' } },
        undefined,
        -32602,
      ],
      [
        { jsonrpc: '2.0', id: 4, method: 'tasks/get', params: { id: 'no-such-task' } },
        undefined,
        -32001,
      ],
      [{ jsonrpc: '2.0', id: 5, method: 'GetTask', params: { id: 'no-such-task' } }, '1.0', -32001],
      [{ jsonrpc: '2.0', id: 6, method: 'SendMessage', params: {} }, '9.9', -32009],
      [
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'SendMessage',
          params: {
            message: {
              messageId: 'x',
              role: 'ROLE_USER',
              parts: [{ data: { aproved: true } }],
              taskId: 't',
            },
          },
        },
        '1.0',
        -32602,
      ],
    ];
    for (const [body, version, code] of cases) {
      const response = await rpc(body, version);
      const where = JSON.stringify(body);
      expect(response.status, where).toBe(200);
      expect((await response.json()).error?.code, where).toBe(code);
    }
    expect((await rpc('{"jsonrpc":')).status).toBe(400);
    // Nested past every body's bounds (fuzzing found the SDK answering this one 500):
    // refused before it.
    const deep = `${'['.repeat(4393)}${']'.repeat(4393)}`;
    const nested = await rpc(`{"jsonrpc":"2.0","id":${deep},"method":"message/send"}`);
    expect(nested.status).toBe(400);
    expect((await nested.json()).error.code).toBe('VALIDATION_FAILED');
    const unknown = await fetch(`${server.url}/api/a2a/nope/.well-known/agent-card.json`);
    expect(unknown.status).toBe(400);
    expect((await ann.get('/api/sessions')).body.sessions).toEqual(before);
  });
});
