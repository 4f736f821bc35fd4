import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { FunctionTool, LlmAgent } from '@google/adk';
import type { UIMessage, UIMessageChunk } from 'ai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  functionResponsesOf,
  lastContent,
  textReply,
  toolCall,
} from '../examples/shared/llm-history.js';
import type { AgentApp } from '../src/agents/agent-app.js';
import { RulesModel } from '../src/agents/rules-model.js';
import { waitForApproval } from '../src/agents/wait-for-approval.js';
import { SequentialAgent } from '../src/agents/workflows/sequential-agent.js';
import { HoldpointError } from '../src/core/errors.js';
import { codeOf } from '../src/core/errors.test-support.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import { createHoldpoint } from '../src/library/create-holdpoint.js';
import { resolveApp } from '../src/library/define-app.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import type { HoldpointRuntime } from '../src/runtime/holdpoint-runtime.js';
import type { RunEvent } from '../src/runtime/run-event.js';
import type { PendingOutcome, RunOutcome } from '../src/runtime/run-outcome.js';
import { savePauseTransition } from '../src/session/transitions/index.js';
import { TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import type { HoldpointStore } from '../src/store/store.js';
import { TestStores } from '../src/store/test-stores.test-support.js';
import linearPayments, { counts } from './fixtures/apps/linear-payments.js';
import { ChatSocketClient } from './support/chat-socket-client.js';
import { exampleConfig } from './support/example-apps.js';
import { JsonClient, signedInAs, TESTER_ROLES } from './support/json-client.js';
import { ann, as, bob } from './support/principals.js';
import { runtimeOn } from './support/runtime-on.js';
import { ServerProcess } from './support/server-process.js';
import { storeWithTransition } from './support/store-with.js';
import {
  finalMessage,
  invalidChunks,
  messageText,
  postChat,
  type ToolPart,
  toolParts,
  userMessage,
} from './support/ui-stream.js';

// Seed 001's decision, made durable: a tool awaits its approvals inline
// (`await waitForApproval(toolContext, { hint, payload })`) and goes on in plain code.
// While the process holds the call (the tool's approval timeout, 30 s by default) the
// answer comes back to the tool's own await; past that, the stored pause is resumed as
// any other and the tool is entered again, its earlier answers given back in order.
const testStores = new TestStores();
const { scratch } = testStores;
afterEach(() => testStores.close());
afterAll(() => testStores.cleanup());
beforeEach(() => {
  counts.entries.clear();
  counts.payments.clear();
});

const stores = testStores.byKind;

const app = resolveApp(linearPayments, { model: 'rules' });
/** The hold's end: the default approval timeout. */
const HOLD_MS = 30_000;

function pending(outcome: RunOutcome): PendingOutcome {
  if (outcome.status !== 'pending_approval') {
    throw new Error(`expected a pause, got ${JSON.stringify(outcome)}`);
  }
  return outcome;
}

/** A tool call's idempotency key, as `idempotencyKey(toolContext)` derives it. */
function effectKey(sessionId: string, callId: string): string {
  return `hp_${createHash('sha256').update(`${sessionId}\n${callId}`).digest('hex').slice(0, 40)}`;
}

/** How often tool bodies were entered, and payments made, in this process. */
function totals() {
  const sum = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
  return { entries: sum(counts.entries), payments: sum(counts.payments) };
}

describe.each(Object.keys(stores))('a tool that awaits its approvals inline (%s)', (kind) => {
  let store: HoldpointStore;
  let clock: ManualClock;
  let runtime: HoldpointRuntime;
  beforeEach(() => {
    store = (stores[kind] as () => HoldpointStore)();
    clock = new ManualClock();
    runtime = runtimeOn(store, app, clock);
  });

  /** Lets the hold of `sessionId`'s pause end, and waits until it is released. */
  async function outlastHold(sessionId: string): Promise<void> {
    clock.advance(HOLD_MS);
    await expect
      .poll(async () => (await store.getSnapshot(sessionId))?.pause?.heldBy)
      .toBe(undefined);
  }

  it('asks each await as a confirmation of the pause, stored before anyone sees it', async () => {
    const paused = pending(await runtime.operations.startRun({ query: 'pay 200 to Jiro' }, ann));
    expect(paused.approvals).toEqual([
      expect.objectContaining({
        kind: 'confirmation',
        toolName: 'transfer',
        args: { amount: 200, recipient: 'Jiro' },
        hint: 'Send 200 to Jiro?',
        payload: { amount: 200 },
        awaitIndex: 0,
      }),
    ]);
    const snapshot = await store.getSnapshot(paused.sessionId);
    expect(snapshot?.meta.status).toBe('paused');
    expect(snapshot?.pause).toMatchObject({ pauseId: paused.pauseId, status: 'pending' });
    expect(snapshot?.pause?.heldBy?.until).toBe(clock.now() + HOLD_MS);
    const view = await runtime.operations.getSession(paused.sessionId, ann);
    expect(view.pendingApprovals.map((a) => a.approvalId)).toEqual(
      paused.approvals.map((a) => a.approvalId),
    );
  });

  it('approves twice in place: the tool is entered once and pays once', async () => {
    const first = pending(await runtime.operations.startRun({ query: 'pay 200 to Jiro' }, ann));
    const [approval] = first.approvals;
    const second = pending(
      await runtime.operations.decideApproval(
        { approvalId: approval?.approvalId ?? '', approved: true, payload: { amount: 150 } },
        ann,
      ),
    );
    expect(second).toMatchObject({
      invocationId: first.invocationId,
      approvals: [
        expect.objectContaining({ hint: 'Second sign-off: 200 to Jiro?', awaitIndex: 1 }),
      ],
    });
    expect(second.pauseId).not.toBe(first.pauseId);
    const done = await runtime.operations.resumeRun(
      { sessionId: first.sessionId, pauseId: second.pauseId, approved: true },
      bob,
    );
    expect(done).toMatchObject({
      status: 'completed',
      invocationId: first.invocationId,
      result:
        'Result: {"status":"sent","amount":150,"recipient":"Jiro","approvedBy":["ann","bob"]}',
    });
    expect(totals()).toEqual({ entries: 1, payments: 1 });
    // A client that reloads sees one call, its two questions and answers, one result.
    const history = await runtime.operations.getSessionMessages(first.sessionId, ann);
    const shown = history.turns.flatMap((turn) => turn.events.map((e) => e.type));
    expect(shown.filter((type) => type === 'tool-call')).toHaveLength(1);
    expect(shown.filter((type) => type === 'approval-requested')).toHaveLength(2);
    expect(shown.filter((type) => type === 'tool-result')).toHaveLength(1);
    const { entries } = await runtime.operations.readAudit({ sessionId: first.sessionId }, bob);
    expect(entries.map((e) => e.action)).toEqual([
      'started',
      'requested',
      'decided',
      'resumed',
      'requested',
      'decided',
      'resumed',
      'executed',
      'completed',
    ]);
  });

  it('hands a rejection and its reason to the tool, which goes on in plain code', async () => {
    const first = pending(await runtime.operations.startRun({ query: 'pay 200 to Jiro' }, ann));
    const done = await runtime.operations.resumeRun(
      { sessionId: first.sessionId, approved: false, reason: 'not this month' },
      ann,
    );
    expect(done).toMatchObject({
      status: 'completed',
      result: 'Result: {"status":"rejected","step":1,"reason":"not this month","by":"ann"}',
    });
    expect(totals()).toEqual({ entries: 1, payments: 0 });
  });

  it('decides a linear approval with the policy of every approval', async () => {
    const first = pending(await runtime.operations.startRun({ query: 'pay 200 to Jiro' }, ann));
    expect(
      await codeOf(
        runtime.operations.resumeRun({ sessionId: first.sessionId, approved: true }, as('eve')),
      ),
    ).toBe('FORBIDDEN');
    expect(
      pending(
        await runtime.operations.resumeRun({ sessionId: first.sessionId, approved: true }, ann),
      ),
    ).toBeTruthy();
  });

  it('past the hold, keeps the pause stored and enters the tool again on resume', async () => {
    const first = pending(await runtime.operations.startRun({ query: 'pay 200 to Jiro' }, ann));
    await outlastHold(first.sessionId);
    expect((await store.getSnapshot(first.sessionId))?.pause).toMatchObject({
      pauseId: first.pauseId,
      status: 'pending',
    });
    // Resumed as any pause: the tool is entered again, and asks its second question.
    const second = pending(
      await runtime.operations.resumeRun({ sessionId: first.sessionId, approved: true }, bob),
    );
    expect(second.approvals).toEqual([
      expect.objectContaining({ hint: 'Second sign-off: 200 to Jiro?' }),
    ]);
    expect(totals()).toEqual({ entries: 2, payments: 0 });
    await outlastHold(second.sessionId);
    // Entered a third time: both earlier answers come back at once, in order.
    const done = await runtime.operations.resumeRun(
      { sessionId: first.sessionId, approved: true },
      ann,
    );
    expect(done).toMatchObject({
      status: 'completed',
      result:
        'Result: {"status":"sent","amount":200,"recipient":"Jiro","approvedBy":["bob","ann"]}',
    });
    expect(totals()).toEqual({ entries: 3, payments: 1 });
  });

  it('rejects at the second await after a resume that replayed the first', async () => {
    const first = pending(await runtime.operations.startRun({ query: 'pay 5 to Ann' }, ann));
    await outlastHold(first.sessionId);
    pending(
      await runtime.operations.resumeRun({ sessionId: first.sessionId, approved: true }, ann),
    );
    await outlastHold(first.sessionId);
    const shown: RunEvent[] = [];
    const done = await runtime.operations.resumeRun(
      { sessionId: first.sessionId, approved: false, reason: 'too late' },
      bob,
      (event) => shown.push(event),
    );
    // The tool ran on the rejection: its result is shown as its own, not as a denial.
    expect(shown.map((e) => e.type)).toContain('tool-result');
    expect(shown.map((e) => e.type)).not.toContain('tool-denied');
    const history = await runtime.operations.getSessionMessages(first.sessionId, ann);
    const reloaded = history.turns.flatMap((turn) => turn.events.map((e) => e.type));
    expect(reloaded).toContain('tool-result');
    expect(reloaded).not.toContain('tool-denied');
    expect(done).toMatchObject({
      status: 'completed',
      result: 'Result: {"status":"rejected","step":2,"reason":"too late","by":"bob"}',
    });
    expect(totals()).toEqual({ entries: 3, payments: 0 });
  });

  it.each([
    ['STORE_UNAVAILABLE', 'OUTCOME_UNKNOWN'],
    ['LEASE_LOST', 'LEASE_LOST'],
  ] as const)(
    'when the held pause cannot be stored (%s): %s, told once, no request shown',
    async (refusal, code) => {
      const failing = storeWithTransition(store, savePauseTransition, () => async () => {
        throw new HoldpointError(refusal, 'savePause refused');
      });
      const shown: RunEvent[] = [];
      const broken = runtimeOn(failing, app, clock);
      const error = await broken.operations
        .startRun({ query: 'pay 1 to Ann' }, ann, (event) => shown.push(event))
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code });
      expect(shown.map((e) => e.type)).not.toContain('approval-requested');
      expect(shown.filter((e) => e.type === 'failed')).toHaveLength(1);
      expect(totals()).toEqual({ entries: 1, payments: 0 });
    },
  );

  it('fails the tool with its own error when it throws on a rejection (the ADR tool)', async () => {
    const first = pending(await runtime.operations.startRun({ query: 'send 200 to Jiro' }, ann));
    const done = await runtime.operations.resumeRun(
      { sessionId: first.sessionId, approved: false, reason: 'no' },
      ann,
    );
    expect(done).toMatchObject({
      status: 'completed',
      result: 'Result: {"error":"Error in tool \'send_money\': User denied the payment: no"}',
    });
  });
});

/** A sequence: `pay` (a tool that awaits twice) then `notify`, which says what was paid. */
function payThenNotify(ran: string[]): AgentApp {
  const pay = new FunctionTool({
    name: 'pay_step',
    description: 'Pays after two approvals.',
    parameters: z.object({}),
    execute: async (_args, toolContext) => {
      ran.push('pay entered');
      const first = await waitForApproval(toolContext, { hint: 'Pay?' });
      const second = first.approved ? await waitForApproval(toolContext, { hint: 'Sure?' }) : first;
      return { paid: first.approved && second.approved };
    },
  });
  const payModel = new RulesModel('pay', (request) => {
    const response = functionResponsesOf(lastContent(request))[0];
    return response
      ? textReply(`paid: ${JSON.stringify(response.response)}`)
      : toolCall('pay_step', {});
  });
  const notifyModel = new RulesModel('notify', () => {
    ran.push('notify');
    return textReply('notified');
  });
  return {
    name: 'pay-then-notify',
    label: 'pay-then-notify',
    description: '',
    examples: [],
    rootAgent: new SequentialAgent({
      name: 'flow',
      subAgents: [
        new LlmAgent({ name: 'payer', model: payModel, instruction: 'Pay.', tools: [pay] }),
        new LlmAgent({ name: 'notifier', model: notifyModel, instruction: 'Notify.' }),
      ],
    }),
    hints: {},
    approvalPolicies: {},
  };
}

describe.each(Object.keys(stores))('a tool that awaits inline in a workflow step (%s)', (kind) => {
  it.each([
    ['in place', false],
    ['entered again after the hold', true],
  ])('%s: the next step runs only after both answers', async (_label, outlast) => {
    const store = (stores[kind] as () => HoldpointStore)();
    const clock = new ManualClock();
    const ran: string[] = [];
    const runtime = runtimeOn(store, payThenNotify(ran), clock);
    const first = pending(await runtime.operations.startRun({ query: 'go' }, ann));
    const outlastHold = async () => {
      if (!outlast) return;
      clock.advance(HOLD_MS);
      await expect
        .poll(async () => (await store.getSnapshot(first.sessionId))?.pause?.heldBy)
        .toBe(undefined);
    };
    await outlastHold();
    expect(ran).toEqual(['pay entered']);
    const second = pending(
      await runtime.operations.resumeRun({ sessionId: first.sessionId, approved: true }, ann),
    );
    expect(second.approvals[0]?.hint).toBe('Sure?');
    expect(ran).not.toContain('notify');
    await outlastHold();
    const done = await runtime.operations.resumeRun(
      { sessionId: first.sessionId, approved: true },
      ann,
    );
    expect(done).toMatchObject({
      status: 'completed',
      result: expect.stringContaining('notified'),
    });
    expect(ran).toEqual(
      outlast ? ['pay entered', 'pay entered', 'pay entered', 'notify'] : ['pay entered', 'notify'],
    );
  });
});

describe('a tool that awaits inline, through the public API in process', () => {
  it('holdpoint.decide and holdpoint.resume go on in place; onEvent follows the run', async () => {
    const holdpoint = createHoldpoint({ apps: [linearPayments], sweepIntervalSeconds: false });
    try {
      const first = pending(await holdpoint.start({ query: 'pay 8 to Ada', userId: 'ann' }));
      const events: RunEvent[] = [];
      const second = pending(
        await holdpoint.decide(
          { approvalId: first.approvals[0]?.approvalId ?? '', approved: true, decidedBy: 'ann' },
          (event) => events.push(event),
        ),
      );
      // What the decider's sink got: the run going on, its second question, its pause.
      expect(events.map((e) => e.type)).toEqual([
        'run-started',
        'decided',
        'approval-requested',
        'outcome',
      ]);
      const done = await holdpoint.resume({
        sessionId: first.sessionId,
        pauseId: second.pauseId,
        approved: true,
        decidedBy: { id: 'ops', roles: ['admin'] },
      });
      expect(done).toMatchObject({
        status: 'completed',
        result: 'Result: {"status":"sent","amount":8,"recipient":"Ada","approvedBy":["ann","ops"]}',
      });
      expect(totals()).toEqual({ entries: 1, payments: 1 });
    } finally {
      await holdpoint.close();
    }
  });
});

describe('a tool that awaits inline, over the transports (one server)', () => {
  const LINEAR_APP = fileURLToPath(new URL('./fixtures/apps/linear-payments.ts', import.meta.url));
  let server: RunningServer;
  let api: JsonClient;
  beforeAll(async () => {
    server = await startServer(exampleConfig('--app', LINEAR_APP));
    api = new JsonClient(`http://127.0.0.1:${server.port}`);
  });
  afterAll(async () => server.close());

  it('goes on in place over a WebSocket: one stream, one finish, one end', async () => {
    const url = `ws://127.0.0.1:${server.port}/api/chat/ws`;
    const [chatter, decider] = await Promise.all([
      ChatSocketClient.connect(url, signedInAs('ws-ann')),
      ChatSocketClient.connect(url, signedInAs('approver', TESTER_ROLES)),
    ]);
    const live: UIMessageChunk[] = [];
    const turn = chatter.turn(
      'r1',
      {
        id: 'linear-ws',
        messages: [userMessage('pay 200 to Jiro')],
        body: { app: 'linear-payments', userId: 'ws-ann' },
      },
      (chunk) => live.push(chunk),
    );
    const requests = () =>
      live.filter((c) => c.type === 'tool-approval-request') as { approvalId: string }[];
    await expect.poll(() => requests().length).toBe(1);
    const first = await decider.decide({
      approvalId: requests()[0]?.approvalId ?? '',
      approved: true,
    });
    expect(first).toMatchObject({ type: 'decision-result', status: 'pending_approval' });
    await expect.poll(() => requests().length).toBe(2);
    const second = await decider.decide({
      approvalId: requests()[1]?.approvalId ?? '',
      approved: true,
    });
    expect(second).toMatchObject({ type: 'decision-result', status: 'completed' });
    const { chunks, ended } = await turn;
    expect(ended).toBe('end');
    expect(await invalidChunks(chunks)).toEqual([]);
    expect(chunks.filter((c) => c.type === 'start')).toHaveLength(1);
    expect(chunks.filter((c) => c.type === 'finish')).toEqual([
      expect.objectContaining({ finishReason: 'stop' }),
    ]);
    expect(chunks.filter((c) => c.type === 'tool-approval-response')).toHaveLength(2);
    const message = await finalMessage(chunks);
    expect(toolParts(message)).toEqual([
      expect.objectContaining({
        type: 'tool-transfer',
        state: 'output-available',
        output: {
          status: 'sent',
          amount: 200,
          recipient: 'Jiro',
          approvedBy: ['approver', 'approver'],
        },
      }),
    ]);
    expect(messageText(message)).toContain('"status":"sent"');
    // Entered once: both answers came back to the tool's own awaits.
    expect(totals()).toEqual({ entries: 1, payments: 1 });
    chatter.close();
    decider.close();
  });

  it("denies a wait past the tool's timeout (policy deny): the tool gets it, one stream", async () => {
    const strict = await startServer(
      exampleConfig(
        '--app',
        LINEAR_APP,
        '--approval-timeout',
        '1',
        '--approval-timeout-policy',
        'deny',
      ),
    );
    try {
      const chatter = await ChatSocketClient.connect(
        `ws://127.0.0.1:${strict.port}/api/chat/ws`,
        signedInAs('ws-ann'),
      );
      const { chunks, ended } = await chatter.turn('r1', {
        id: 'linear-ws-timeout',
        messages: [userMessage('pay 7 to Jiro')],
        body: { app: 'linear-payments', userId: 'ws-ann' },
      });
      expect(ended).toBe('end');
      expect(chunks.filter((c) => c.type === 'finish')).toEqual([
        expect.objectContaining({ finishReason: 'stop' }),
      ]);
      expect(chunks).toContainEqual(
        expect.objectContaining({
          type: 'tool-approval-response',
          approved: false,
          reason: 'timed out',
        }),
      );
      const [part] = toolParts(await finalMessage(chunks));
      expect(part).toMatchObject({
        state: 'output-available',
        output: { status: 'rejected', step: 1, reason: 'timed out', by: 'system' },
      });
      chatter.close();
    } finally {
      await strict.close();
    }
  });

  it('is decided over REST: POST /api/approvals/:id, then POST /api/agent/resume', async () => {
    const started = await api.post('/api/agent/start', {
      query: 'pay 70 to Ken',
      app: 'linear-payments',
      user_id: 'ann',
    });
    expect(started.body).toMatchObject({
      status: 'pending_approval',
      approvals: [expect.objectContaining({ kind: 'confirmation', hint: 'Send 70 to Ken?' })],
    });
    const approvalId = started.body.approvals[0].approval_id;
    const second = await api.post(`/api/approvals/${approvalId}`, {
      approved: true,
      user_id: 'ann',
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      status: 'pending_approval',
      invocation_id: started.body.invocation_id,
      approvals: [expect.objectContaining({ hint: 'Second sign-off: 70 to Ken?' })],
    });
    const done = await api.post('/api/agent/resume', {
      session_id: started.body.session_id,
      pause_id: second.body.pause_id,
      approved: true,
      user_id: 'ann',
    });
    expect(done.body).toMatchObject({
      status: 'completed',
      invocation_id: started.body.invocation_id,
      result: 'Result: {"status":"sent","amount":70,"recipient":"Ken","approvedBy":["ann","ann"]}',
    });
    expect(totals()).toEqual({ entries: 1, payments: 1 });
  });

  it('is decided over SSE, one turn per answer, each continuing the same run', async () => {
    const chatUrl = `http://127.0.0.1:${server.port}/api/chat`;
    const body = { id: 'linear-sse', app: 'linear-payments', userId: 'tester' };
    const question = userMessage('pay 9 to Mia');
    const first = await postChat(chatUrl, { ...body, messages: [question] });
    expect(first.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
    let message = await finalMessage(first.chunks);
    // Each turn answers the approval the tool part waits on; the next turn goes on.
    for (let turn = 0; turn < 2; turn++) {
      const [part] = toolParts(message);
      expect(part).toMatchObject({ type: 'tool-transfer', state: 'approval-requested' });
      const reply: UIMessage = {
        ...message,
        parts: message.parts.map((p) =>
          (p as unknown as ToolPart).toolCallId === part?.toolCallId
            ? ({
                ...p,
                state: 'approval-responded',
                approval: { id: part?.approval?.id ?? '', approved: true },
              } as typeof p)
            : p,
        ),
      };
      const next = await postChat(chatUrl, { ...body, messages: [question, reply] });
      expect(await invalidChunks(next.chunks)).toEqual([]);
      expect(next.chunks[0]).toEqual({ type: 'start', messageId: message.id });
      expect(next.chunks.at(-1)).toMatchObject({
        type: 'finish',
        finishReason: turn === 0 ? 'tool-calls' : 'stop',
      });
      message = await finalMessage(next.chunks, reply);
    }
    expect(toolParts(message)[0]).toMatchObject({
      state: 'output-available',
      output: { status: 'sent', amount: 9, recipient: 'Mia', approvedBy: ['tester', 'tester'] },
    });
    expect(totals()).toEqual({ entries: 1, payments: 1 });
  });
});

describe('a tool that awaits inline, across instances (redis)', () => {
  const twoInstances = () => {
    const make = () => testStores.redis();
    const clock = new ManualClock();
    return {
      a: runtimeOn(make(), app, clock),
      b: runtimeOn(make(), app, new ManualClock(clock.now())),
    };
  };

  it('hands a decision made on another instance to the one holding the tool, in place', async () => {
    const { a, b } = twoInstances();
    const first = pending(await a.operations.startRun({ query: 'pay 40 to Rin' }, ann));
    // Decided on B: A's tool gets the answer at its own await; B answers with what A ran.
    const second = pending(
      await b.operations.resumeRun({ sessionId: first.sessionId, approved: true }, bob),
    );
    expect(second.approvals).toEqual([
      expect.objectContaining({ hint: 'Second sign-off: 40 to Rin?' }),
    ]);
    const done = await b.operations.resumeRun({ sessionId: first.sessionId, approved: true }, ann);
    expect(done).toMatchObject({
      status: 'completed',
      result: 'Result: {"status":"sent","amount":40,"recipient":"Rin","approvedBy":["bob","ann"]}',
    });
    expect(totals()).toEqual({ entries: 1, payments: 1 });
  });

  it('releases what a stopping instance holds: another resumes it, entering the tool again', async () => {
    const { a, b } = twoInstances();
    const first = pending(await a.operations.startRun({ query: 'pay 41 to Rin' }, ann));
    await a.close();
    const second = pending(
      await b.operations.resumeRun({ sessionId: first.sessionId, approved: true }, bob),
    );
    expect(second.approvals[0]?.hint).toBe('Second sign-off: 41 to Rin?');
    expect(totals()).toEqual({ entries: 2, payments: 0 });
    const done = await b.operations.resumeRun({ sessionId: first.sessionId, approved: true }, ann);
    expect(done).toMatchObject({ status: 'completed' });
    expect(totals()).toEqual({ entries: 2, payments: 1 });
  });
});

describe('a tool that awaits inline, across a server restart (processes on Redis)', () => {
  const LINEAR_APP = fileURLToPath(new URL('./fixtures/apps/linear-payments.ts', import.meta.url));
  const COUNT_KEY = `${scratch.prefix}:linear-effects`;
  const servers: ServerProcess[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.kill('SIGKILL')));
  });
  async function server(...args: string[]): Promise<ServerProcess> {
    const started = await ServerProcess.start(
      [
        '--store',
        'redis',
        '--redis-url',
        TEST_REDIS_URL,
        '--redis-prefix',
        scratch.prefix,
        '--app',
        LINEAR_APP,
        ...args,
      ],
      { LINEAR_EFFECTS_KEY: COUNT_KEY, LINEAR_EFFECTS_REDIS_URL: TEST_REDIS_URL },
    );
    servers.push(started);
    return started;
  }
  /** What the processes counted for `key`: the tool entered, and the payment made. */
  async function counted(key: string) {
    const [entries, payments] = await Promise.all([
      scratch.redis.hget(`${COUNT_KEY}:entries`, key),
      scratch.redis.hget(`${COUNT_KEY}:payments`, key),
    ]);
    return { entries: Number(entries ?? 0), payments: Number(payments ?? 0) };
  }

  it('approves once on one process and once on the next: the tool goes on, pays once', async () => {
    const a = await server();
    const started = await a.client.post('/api/agent/start', {
      query: 'pay 300 to Jiro',
      app: 'linear-payments',
      user_id: 'ann',
    });
    expect(started.body).toMatchObject({ status: 'pending_approval' });
    const [asked] = started.body.approvals;
    const key = effectKey(started.body.session_id, asked.tool_call_id);
    const second = await a.client.post(`/api/approvals/${asked.approval_id}`, {
      approved: true,
      user_id: 'ann',
    });
    expect(second.body).toMatchObject({
      status: 'pending_approval',
      approvals: [expect.objectContaining({ hint: 'Second sign-off: 300 to Jiro?' })],
    });
    expect(await counted(key)).toEqual({ entries: 1, payments: 0 });
    // The process restarts while the tool waits at its second await.
    await a.kill('SIGTERM');
    const b = await server();
    const done = await b.client.post('/api/agent/resume', {
      session_id: started.body.session_id,
      pause_id: second.body.pause_id,
      approved: true,
      user_id: 'bob',
    });
    expect(done.body).toMatchObject({
      status: 'completed',
      invocation_id: started.body.invocation_id,
      result:
        'Result: {"status":"sent","amount":300,"recipient":"Jiro","approvedBy":["ann","bob"]}',
    });
    // Entered again on B, the first answer given back at once; paid once.
    expect(await counted(key)).toEqual({ entries: 2, payments: 1 });
  });

  it('goes on in place on the WebSocket of one process, decided on another', async () => {
    const [a, b] = await Promise.all([server(), server()]);
    const chatter = await ChatSocketClient.connect(
      `ws://127.0.0.1:${a.port}/api/chat/ws`,
      signedInAs('ws-ann'),
    );
    const live: UIMessageChunk[] = [];
    const turn = chatter.turn(
      'r1',
      {
        id: 'linear-ws-two',
        messages: [userMessage('pay 60 to Jiro')],
        body: { app: 'linear-payments', userId: 'ws-ann' },
      },
      (chunk) => live.push(chunk),
    );
    const requests = () =>
      live.filter((c) => c.type === 'tool-approval-request') as { approvalId: string }[];
    const approver = new JsonClient(b.url, { user: 'maria', roles: ['admin'] });
    await expect.poll(() => requests().length, { timeout: 10_000 }).toBe(1);
    const first = await approver.post(`/api/approvals/${requests()[0]?.approvalId}`, {
      approved: true,
    });
    expect(first.body).toMatchObject({ status: 'pending_approval' });
    await expect.poll(() => requests().length, { timeout: 10_000 }).toBe(2);
    const second = await approver.post(`/api/approvals/${requests()[1]?.approvalId}`, {
      approved: true,
    });
    expect(second.body).toMatchObject({ status: 'completed' });
    const { chunks, ended } = await turn;
    expect(ended).toBe('end');
    expect(await invalidChunks(chunks)).toEqual([]);
    expect(chunks.filter((c) => c.type === 'finish')).toEqual([
      expect.objectContaining({ finishReason: 'stop' }),
    ]);
    const [part] = toolParts(await finalMessage(chunks));
    expect(part).toMatchObject({ state: 'output-available', output: { status: 'sent' } });
    const key = effectKey(
      (second.body as { session_id: string }).session_id,
      part?.toolCallId ?? '',
    );
    // Entered once, on A: both answers came back to its awaits from B's decisions.
    expect(await counted(key)).toEqual({ entries: 1, payments: 1 });
    chatter.close();
  });

  it('recovers, for the decider, a run handed to a process killed while it held the tool', async () => {
    const a = await server('--run-lease', '3');
    const started = await a.client.post('/api/agent/start', {
      query: 'pay 500 to Jiro',
      app: 'linear-payments',
      user_id: 'ann',
    });
    const [asked] = started.body.approvals;
    const key = effectKey(started.body.session_id, asked.tool_call_id);
    const second = await a.client.post(`/api/approvals/${asked.approval_id}`, {
      approved: true,
      user_id: 'ann',
    });
    expect(second.body).toMatchObject({ status: 'pending_approval' });
    // Killed while it holds the second await: its hold is still stored, so the decision
    // is handed to it; once the lease it was handed lapses, the decider recovers the run.
    await a.kill('SIGKILL');
    const b = await server('--run-lease', '3');
    const done = await b.client.post('/api/agent/resume', {
      session_id: started.body.session_id,
      pause_id: second.body.pause_id,
      approved: true,
      user_id: 'bob',
    });
    expect(done.body).toMatchObject({
      status: 'completed',
      invocation_id: started.body.invocation_id,
      result:
        'Result: {"status":"sent","amount":500,"recipient":"Jiro","approvedBy":["ann","bob"]}',
    });
    expect(await counted(key)).toEqual({ entries: 2, payments: 1 });
  });

  it('keeps the pause stored once the in-process wait ends, and resumes it', async () => {
    const a = await server('--approval-timeout', '1');
    const released = a.waitForOutput('held pause released');
    const started = await a.client.post('/api/agent/start', {
      query: 'send 12 to Ken',
      app: 'linear-payments',
      user_id: 'ann',
    });
    const [asked] = started.body.approvals;
    const key = effectKey(started.body.session_id, asked.tool_call_id);
    await released;
    const view = await a.client.get(`/api/sessions/${started.body.session_id}?user_id=ann`);
    expect(view.body).toMatchObject({
      status: 'paused',
      pending_approvals: [expect.objectContaining({ approval_id: asked.approval_id })],
    });
    const done = await a.client.post(`/api/approvals/${asked.approval_id}`, {
      approved: true,
      user_id: 'ann',
    });
    expect(done.body).toMatchObject({ status: 'completed' });
    expect(await counted(key)).toEqual({ entries: 2, payments: 1 });
  });
});
