import { fileURLToPath } from 'node:url';
import { type BaseEvent, HttpAgent, type RunAgentParameters } from '@ag-ui/client';
import type { Interrupt } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { describe, expect, it, vi } from 'vitest';
import { JsonClient, signedInAs } from './support/json-client.js';
import { restartingServer } from './support/restarting-server.js';
import { ServerProcess } from './support/server-process.js';

// Issue 36, point 1, with AG-UI's official client (`@ag-ui/client`'s HttpAgent) against
// `holdpoint serve` in its own process on the default SQLite store: the payments app,
// whose payments wait for an approver who is not the person asking, and whose approver
// may edit the payment.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

/** A server on this file's data directory: the one running before is killed (SIGKILL) first. */
const restart = restartingServer('ag-ui');
/** An app whose deciders may answer in a tool's place, and whose tool asks a person for a value. */
const RICH_APP = fileURLToPath(new URL('./support/rich-decisions-app.ts', import.meta.url));

/** An AG-UI client of `app` on `server`, signed in as `user` with `roles`. */
function agent(
  server: ServerProcess,
  user: string,
  roles: string[] = [],
  threadId?: string,
): HttpAgent {
  return new HttpAgent({
    url: `${server.url}/api/ag-ui/payments`,
    headers: signedInAs(user, roles),
    ...(threadId === undefined ? {} : { threadId }),
  });
}

/** One run of `client`: every event it received (each checked against AG-UI's schemas) and its error. */
async function run(
  client: HttpAgent,
  parameters: RunAgentParameters = {},
): Promise<{ events: BaseEvent[]; error?: Error }> {
  const events: BaseEvent[] = [];
  try {
    await client.runAgent(parameters, {
      onEvent: ({ event }) => {
        EventSchemas.parse(event);
        events.push(event);
      },
    });
    return { events };
  } catch (error) {
    return { events, error: error as Error };
  }
}

const ofType = (events: BaseEvent[], type: string) => events.filter((e) => e.type === type);

function interruptsOf(events: BaseEvent[]): Interrupt[] {
  const finished = events.at(-1) as {
    type: string;
    outcome?: { type: string; interrupts?: Interrupt[] };
  };
  expect(finished.type).toBe('RUN_FINISHED');
  expect(finished.outcome?.type).toBe('interrupt');
  return finished.outcome?.interrupts ?? [];
}

const ann = (server: ServerProcess) => new JsonClient(server.url, { user: 'ann', roles: [] });
const admin = (server: ServerProcess) =>
  new JsonClient(server.url, { user: 'auditor', roles: ['admin'] });

describe('AG-UI: an app as an AG-UI agent, with the official client', () => {
  it('pauses as an interrupt, refuses the requester, survives a restart, and resumes edited', async () => {
    let server = await restart();
    const asking = agent(server, 'ann');
    asking.addMessage({ id: 'm1', role: 'user', content: 'Send $200 to Jiro' });
    const first = await run(asking);
    expect(first.error).toBeUndefined();
    expect(first.events[0]).toMatchObject({ type: 'RUN_STARTED', threadId: asking.threadId });
    const [call] = ofType(first.events, 'TOOL_CALL_START') as unknown as { toolCallId: string }[];
    const [interrupt] = interruptsOf(first.events);
    expect(interrupt).toMatchObject({
      reason: 'tool_approval',
      message: 'Send 200 USD to Jiro?',
      toolCallId: call?.toolCallId,
      metadata: {
        holdpoint: {
          tool: 'process_payment',
          args: { amount: 200, currency: 'USD', recipient: 'Jiro' },
          argsHash: expect.stringMatching(/^sha256:/),
          approvers: { roles: ['approver'], requesterMayApprove: false },
          decisionPolicy: expect.objectContaining({
            editable: ['amount', 'recipient', 'currency'],
          }),
        },
      },
    });
    expect(asking.pendingInterrupts.map((i) => i.id)).toEqual([interrupt?.id]);
    const approvalId = interrupt?.id ?? '';

    // The requester may not approve their own payment: FORBIDDEN, nothing recorded.
    const own = await run(asking, {
      resume: [{ interruptId: approvalId, status: 'resolved', payload: { approved: true } }],
    });
    expect(own.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'FORBIDDEN' });
    expect(asking.pendingInterrupts.map((i) => i.id)).toEqual([approvalId]);
    const waiting = await ann(server).get(`/api/sessions/${asking.threadId}`);
    expect(waiting.body).toMatchObject({
      status: 'paused',
      pending_approvals: [{ approval_id: approvalId }],
    });

    // A new process; an approver's client that knows nothing of the thread but its id.
    server = await restart();
    const approving = agent(server, 'maria', ['approver'], asking.threadId);
    const told = await run(approving);
    expect(interruptsOf(told.events).map((i) => i.id)).toEqual([approvalId]);
    expect(approving.pendingInterrupts.map((i) => i.id)).toEqual([approvalId]);
    // Reconnecting again (a page reloaded) is told the same interrupt: no second run.
    const again = await run(agent(server, 'maria', ['approver'], asking.threadId));
    expect(interruptsOf(again.events).map((i) => i.id)).toEqual([approvalId]);

    const edited = { amount: 150, currency: 'USD', recipient: 'Jiro' };
    const resumed = await run(approving, {
      resume: [
        {
          interruptId: approvalId,
          status: 'resolved',
          payload: {
            approved: true,
            argsHash: interrupt?.metadata?.holdpoint.argsHash,
            editedArgs: edited,
          },
        },
      ],
    });
    expect(resumed.error).toBeUndefined();
    const [result] = ofType(resumed.events, 'TOOL_CALL_RESULT') as unknown as { content: string }[];
    expect(JSON.parse(result?.content ?? '{}')).toMatchObject({ status: 'completed', amount: 150 });
    expect(resumed.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'success' },
      result: expect.stringContaining('150'),
    });
    expect(approving.pendingInterrupts).toEqual([]);

    // One run, one decision, named by its door.
    const session = await ann(server).get(`/api/sessions/${asking.threadId}`);
    expect(session.body).toMatchObject({ status: 'idle', pending_approvals: [] });
    const audit = await admin(server).get(`/api/audit?session_id=${asking.threadId}`);
    const decided = audit.body.entries.filter((e: { action: string }) => e.action === 'decided');
    expect(decided).toEqual([
      expect.objectContaining({
        approval_id: approvalId,
        actor: 'maria',
        channel: 'ag-ui',
        approved: true,
      }),
    ]);
    const actions = audit.body.entries.map((e: { action: string }) => e.action);
    expect(actions.filter((a: string) => a === 'started')).toHaveLength(1);
    expect(actions.filter((a: string) => a === 'requested')).toHaveLength(1);
    expect(actions.filter((a: string) => a === 'executed')).toHaveLength(1);

    // A second answer, from another client: ALREADY_DECIDED, in AG-UI's terms.
    const late = agent(server, 'bob', ['approver'], asking.threadId);
    const second = await run(late, {
      resume: [{ interruptId: approvalId, status: 'resolved', payload: { approved: false } }],
    });
    expect(second.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'ALREADY_DECIDED' });
    // Abandoning an interrupt nobody waits on any more asks nothing: the run stands done.
    const dropped = await run(late, { resume: [{ interruptId: approvalId, status: 'cancelled' }] });
    expect(dropped.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'success' },
    });
  });

  it('a rejection with its reason: the payment never runs', async () => {
    const server = await restart();
    const asking = agent(server, 'ann');
    asking.addMessage({ id: 'm1', role: 'user', content: 'Send 50 EUR to Ana' });
    const [interrupt] = interruptsOf((await run(asking)).events);
    const approving = agent(server, 'maria', ['approver'], asking.threadId);
    await run(approving);
    const rejected = await run(approving, {
      resume: [
        {
          interruptId: interrupt?.id ?? '',
          status: 'resolved',
          payload: { approved: false, reason: 'Ana was paid already' },
        },
      ],
    });
    const [result] = ofType(rejected.events, 'TOOL_CALL_RESULT') as unknown as {
      content: string;
    }[];
    expect(JSON.parse(result?.content ?? '{}')).toEqual({ denied: true });
    expect(rejected.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'success' },
    });
    const audit = await admin(server).get(`/api/audit?session_id=${asking.threadId}`);
    expect(audit.body.entries).toContainEqual(
      expect.objectContaining({
        action: 'decided',
        approved: false,
        reason: 'Ana was paid already',
        channel: 'ag-ui',
      }),
    );
    expect(audit.body.entries.map((e: { action: string }) => e.action)).not.toContain('executed');
  });

  it('refuses bad input with a clear error and changes nothing', async () => {
    const server = await restart();
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { ...signedInAs('ann'), 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const before = (await ann(server).get('/api/sessions')).body.sessions;
    const valid = { threadId: 't-bad-input', runId: 'r1', messages: [] };
    const cases: [string, unknown, number, string][] = [
      ['/api/ag-ui/payments', '{"threadId":', 400, 'INVALID_JSON'],
      ['/api/ag-ui/payments', { runId: 'r1', messages: [] }, 400, 'VALIDATION_FAILED'],
      ['/api/ag-ui/payments', { ...valid, messages: 'hi' }, 400, 'VALIDATION_FAILED'],
      ['/api/ag-ui/payments', { ...valid, threadId: 'x'.repeat(201) }, 400, 'VALIDATION_FAILED'],
      [
        '/api/ag-ui/payments',
        {
          ...valid,
          resume: [{ interruptId: 'a', status: 'resolved', payload: { aproved: true } }],
        },
        400,
        'VALIDATION_FAILED',
      ],
      ['/api/ag-ui/payments', { ...valid, resume: [] }, 400, 'VALIDATION_FAILED'],
      ['/api/ag-ui/nope', valid, 400, 'UNKNOWN_APP'],
    ];
    for (const [path, body, status, code] of cases) {
      const response = await post(path, body);
      expect([path, response.status]).toEqual([path, status]);
      expect(await response.json()).toMatchObject({ error: { code } });
    }
    // Well-formed, but nothing to run: a RUN_ERROR with the code, in the stream.
    const empty = await run(agent(server, 'ann', [], 't-empty'));
    expect(empty.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'VALIDATION_FAILED' });
    const unknown = await run(agent(server, 'ann', [], 't-unknown'), {
      resume: [{ interruptId: 'nope', status: 'resolved', payload: { approved: true } }],
    });
    expect(unknown.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'SESSION_NOT_FOUND' });
    expect((await ann(server).get('/api/sessions')).body.sessions).toEqual(before);
  });

  it("answers in the tool's place where its policy allows, and gives an input its value", async () => {
    const server = await ServerProcess.start([
      '--app',
      RICH_APP,
      '--model',
      'rules',
      '--store',
      'memory',
    ]);
    try {
      const url = `${server.url}/api/ag-ui/rich-decisions`;
      const asking = new HttpAgent({ url, headers: signedInAs('ann', ['admin']) });
      asking.addMessage({ id: 'm1', role: 'user', content: 'lookup weather' });
      const [lookup] = interruptsOf((await run(asking)).events);
      expect(lookup?.metadata?.holdpoint.decisionPolicy).toMatchObject({ respond: true });
      const answered = await run(asking, {
        resume: [
          {
            interruptId: lookup?.id ?? '',
            status: 'resolved',
            payload: {
              approved: true,
              argsHash: lookup?.metadata?.holdpoint.argsHash,
              response: { answer: 'sunny' },
            },
          },
        ],
      });
      const [result] = ofType(answered.events, 'TOOL_CALL_RESULT') as unknown as {
        content: string;
      }[];
      // The person's answer is the call's result: the tool did not run.
      expect(JSON.parse(result?.content ?? '{}')).toEqual({ answer: 'sunny' });

      const valued = new HttpAgent({ url, headers: signedInAs('ann', ['admin']) });
      valued.addMessage({ id: 'm2', role: 'user', content: 'value' });
      const [input] = interruptsOf((await run(valued)).events);
      expect(input).toMatchObject({ reason: 'input_required' });
      const given = await run(valued, {
        resume: [
          {
            interruptId: input?.id ?? '',
            status: 'resolved',
            payload: { approved: true, payload: { colour: 'teal' } },
          },
        ],
      });
      expect(given.events.at(-1)).toMatchObject({
        type: 'RUN_FINISHED',
        outcome: { type: 'success' },
      });
      expect(JSON.stringify(given.events)).toContain('teal');
    } finally {
      await server.kill();
    }
  });
});
