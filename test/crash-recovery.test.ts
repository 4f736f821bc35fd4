import { FunctionTool, LlmAgent } from '@google/adk';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  functionResponsesOf,
  lastContent,
  textReply,
  toolCall,
} from '../examples/shared/llm-history.js';
import type { AgentApp } from '../src/agents/agent-app.js';
import { RulesModel } from '../src/agents/rules-model.js';
import { ParallelAgent } from '../src/agents/workflows/parallel-agent.js';
import { SequentialAgent } from '../src/agents/workflows/sequential-agent.js';
import { HoldpointError } from '../src/core/errors.js';
import { codeOf } from '../src/core/errors.test-support.js';
import { hashArgs } from '../src/core/hash.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import {
  checkpointTransition,
  finishRunTransition,
  renewLeaseTransition,
} from '../src/session/transitions/index.js';
import type { HoldpointStore } from '../src/store/store.js';
import { presentApproval, presentSession } from '../src/transports/http/present.js';
import { HeldCalls, heldToolApp } from './support/held-tool-app.js';
import { ann, bob, ops } from './support/principals.js';
import { LEASE_SECONDS, runtimeOn } from './support/runtime-on.js';
import { type AnyTransition, storeFailingAt } from './support/store-with.js';
import { STORE_KINDS, TwoInstances } from './support/two-instances.js';

// A run whose process stops between a person's approval and the run's end: another
// instance (B) resumes it by its invocation id once the lease lapsed. Instance A
// "dies" by never being heard from again: its clock stands still (it renews nothing)
// and, where the test says so, its store never answers the segment's end.
const instances = new TwoInstances();
afterEach(() => instances.close());
afterAll(() => instances.cleanup());

/** `store` as seen by a process that dies when it calls `at`: the call never arrives. */
function diesAt(store: HoldpointStore, at: keyof HoldpointStore | AnyTransition): HoldpointStore {
  return storeFailingAt(store, at, () => new Promise(() => {}));
}

/** `store` as seen by a process whose `at` finds the store unreachable. */
function unreachableAt(
  store: HoldpointStore,
  at: keyof HoldpointStore | AnyTransition,
): HoldpointStore {
  const name = typeof at === 'function' ? at.name : at;
  return storeFailingAt(store, at, async () => {
    throw new HoldpointError('STORE_UNAVAILABLE', `The store is unavailable: ${name} failed`);
  });
}

function passing(): HeldCalls {
  const calls = new HeldCalls();
  calls.passThrough = true;
  return calls;
}

/** A step whose tool (gated: needs approval) runs at once and says done. */
function quickStep(name: string, gated: boolean): LlmAgent {
  const tool = new FunctionTool({
    name: `${name}_tool`,
    description: name,
    parameters: z.object({}),
    requireConfirmation: gated,
    execute: async () => ({ done: name }),
  });
  const model = new RulesModel(name, (request) =>
    functionResponsesOf(lastContent(request))[0]
      ? textReply(`${name} done`)
      : toolCall(tool.name, {}),
  );
  return new LlmAgent({ name, model, instruction: name, tools: [tool] });
}

/**
 * Two branches: `payer` calls `slow_pay` (needs approval, waits in `calls`); `b` is a
 * sequence of `b1` (needs approval) and `b2`, so it checkpoints while `slow_pay` runs.
 */
function fanOutApp(calls: HeldCalls): AgentApp {
  const pay = new FunctionTool({
    name: 'slow_pay',
    description: 'Pays slowly.',
    parameters: z.object({}),
    requireConfirmation: true,
    execute: async (_args, ctx) => {
      await calls.hold(ctx?.invocationContext.session.id ?? '', 'slow_pay');
      calls.effects.push('slow_pay');
      return { paid: true };
    },
  });
  const payerModel = new RulesModel('payer', (request) =>
    functionResponsesOf(lastContent(request))[0] ? textReply('paid') : toolCall('slow_pay', {}),
  );
  const rootAgent = new ParallelAgent({
    name: 'fan',
    subAgents: [
      new LlmAgent({ name: 'payer', model: payerModel, instruction: 'Pay.', tools: [pay] }),
      new SequentialAgent({
        name: 'b',
        subAgents: [quickStep('b1', true), quickStep('b2', false)],
      }),
    ],
  });
  return {
    name: 'fan',
    label: 'fan',
    description: '',
    examples: [],
    rootAgent,
    hints: {},
    approvalPolicies: {},
  };
}

describe.each(STORE_KINDS)('a run recovered after its process stopped (%s)', (kind) => {
  const lapse = (clock: ManualClock) => clock.advance(LEASE_SECONDS * 1000 + 1_000);

  it('answers an approved call from the ledger when its effect ran before the crash', async () => {
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    const callsA = passing();
    const appA = heldToolApp(callsA, true);
    const paused = await runtimeOn(storeA, appA, clockA).operations.startRun({ query: 'pay' }, ann);
    const { sessionId, invocationId } = paused;
    // A approves and pays, then dies before the payment's result is stored (its
    // checkpoint, the first write after the effect).
    const dying = runtimeOn(diesAt(storeA, checkpointTransition), appA, clockA);
    void dying.operations.resumeRun({ sessionId, approved: true }, bob);
    await expect.poll(() => callsA.effects.length).toBe(1);

    const callsB = passing();
    const b = runtimeOn(storeB, heldToolApp(callsB, true), clockB);
    expect(await codeOf(b.operations.recoverRun({ invocationId }, ops))).toBe(
      'RUN_NOT_INTERRUPTED',
    );
    lapse(clockB);
    expect(await b.operations.getRun(invocationId, ops)).toMatchObject({ status: 'interrupted' });
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
      result: 'Done: held_payment',
    });
    expect(callsB.effects).toEqual([]);
    const { entries } = await b.operations.readAudit({ sessionId }, ops);
    expect(entries.map((e) => e.action)).toEqual([
      'started',
      'requested',
      'decided',
      'resumed',
      'recovered',
      'executed',
      'completed',
    ]);
    const history = await b.operations.getSessionMessages(sessionId, ops);
    const results = history.turns.flatMap((turn) =>
      turn.events.flatMap((e) => (e.type === 'tool-result' ? [e.output] : [])),
    );
    expect(results).toEqual([{ status: 'done', tool: 'held_payment' }]);
  });

  it('runs an approved payment that never reached its tool without asking again: the ledger shows it did not run', async () => {
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    const appA = heldToolApp(passing(), true);
    const { sessionId, invocationId } = await runtimeOn(storeA, appA, clockA).operations.startRun(
      { query: 'pay' },
      ann,
    );
    // A records the approval, takes the session for the resume, and dies before ADK
    // reaches the payment tool (while loading the session): no once() lock, no mark.
    const dying = runtimeOn(diesAt(storeA, 'loadSession'), appA, clockA);
    void dying.operations.resumeRun({ sessionId, approved: true }, bob);
    await expect
      .poll(async () => (await storeB.getSnapshot(sessionId))?.pause?.status)
      .toBe('resuming');

    const callsB = passing();
    const b = runtimeOn(storeB, heldToolApp(callsB, true), clockB);
    lapse(clockB);
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
      result: 'Done: held_payment',
    });
    expect(callsB.effects).toHaveLength(1);
    const { entries } = await b.operations.readAudit({ sessionId }, ops);
    expect(entries.filter((e) => e.action === 'requested')).toHaveLength(1);
    expect(entries.filter((e) => e.action === 'executed')).toHaveLength(1);
  });

  it('goes on after an approved call whose result was stored before the crash', async () => {
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    const callsA = passing();
    const appA = heldToolApp(callsA, true);
    const paused = await runtimeOn(storeA, appA, clockA).operations.startRun({ query: 'pay' }, ann);
    const { sessionId, invocationId } = paused;
    // A approves and pays; the payment's result is stored (a tool-level checkpoint,
    // audited `executed`); A dies before the run's end is stored.
    const dying = runtimeOn(diesAt(storeA, finishRunTransition), appA, clockA);
    void dying.operations.resumeRun({ sessionId, approved: true }, bob);
    await expect
      .poll(async () => (await storeB.getSnapshot(sessionId))?.run?.checkpointed)
      .toBe(true);

    const callsB = passing();
    const b = runtimeOn(storeB, heldToolApp(callsB, true), clockB);
    lapse(clockB);
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
      result: 'Done: held_payment',
    });
    expect(callsA.effects).toHaveLength(1);
    expect(callsB.effects).toEqual([]);
    const { entries } = await b.operations.readAudit({ sessionId }, ops);
    expect(entries.map((e) => e.action)).toEqual([
      'started',
      'requested',
      'decided',
      'resumed',
      'executed',
      'recovered',
      'completed',
    ]);
    const history = await b.operations.getSessionMessages(sessionId, ops);
    const results = history.turns.flatMap((turn) =>
      turn.events.flatMap((e) => (e.type === 'tool-result' ? [e.output] : [])),
    );
    expect(results).toEqual([{ status: 'done', tool: 'held_payment' }]);
  });

  it('asks again about an approved call that started and left no trace, and pays once', async () => {
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    const callsA = new HeldCalls();
    const a = runtimeOn(storeA, heldToolApp(callsA, true), clockA);
    callsA.passThrough = true;
    const { sessionId, invocationId } = await a.operations.startRun({ query: 'pay' }, ann);
    callsA.passThrough = false;
    // A approves (a request with an id, as an Idempotency-Key gives it); the payment
    // tool starts and A dies inside it, before its effect.
    const approval = { sessionId, approved: true, requestId: 'approve-once' };
    const lateA = codeOf(a.operations.resumeRun(approval, bob));
    const inTool = await callsA.next();

    const callsB = passing();
    const b = runtimeOn(storeB, heldToolApp(callsB, true), clockB);
    lapse(clockB);
    const asked = await b.operations.recoverRun({ invocationId }, ops);
    expect(asked).toMatchObject({ status: 'pending_approval', invocationId });
    if (asked.status !== 'pending_approval') throw new Error('not asked');
    expect(asked.approvals).toHaveLength(1);
    expect(asked.approvals[0]).toMatchObject({ toolName: 'held_payment', mayHaveRun: true });
    expect(asked.approvals[0]?.hint).toMatch(/may already have run/);
    expect(callsB.effects).toEqual([]);
    // The first approval's request, made again, learns the question is asked anew; it
    // never answers it. (Regression: it was recorded as the answer, and paid again.)
    expect(await b.operations.resumeRun(approval, bob)).toMatchObject({
      status: 'pending_approval',
      approvals: [expect.objectContaining({ mayHaveRun: true })],
      decisions: [],
    });
    expect(callsB.effects).toEqual([]);

    const done = await b.operations.decideApproval(
      { approvalId: asked.approvals[0]?.approvalId ?? '', approved: true },
      bob,
    );
    expect(done).toMatchObject({ status: 'completed', result: 'Done: held_payment' });
    expect(callsB.effects).toHaveLength(1);
    // The process thought dead wakes up: its call finds the stored result, its end is refused.
    inTool.release();
    expect(await lateA).toBe('LEASE_LOST');
    expect(callsA.effects).toEqual([]);
    const { entries } = await b.operations.readAudit({ sessionId }, ops);
    expect(entries.filter((e) => e.action === 'executed')).toHaveLength(1);
    expect(entries.filter((e) => e.action === 'requested').at(-1)?.reason).toMatch(/may have run/);
  });

  it('asks again about an edited call that may have run with the edit in force, not as a vote', async () => {
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    // Approvers may change the amount; the app describes each call by its amount.
    const editable = (calls: HeldCalls): AgentApp => ({
      ...heldToolApp(calls, true),
      hints: { held_payment: (args) => `Pay ${String(args.amount)}?` },
      decisionRules: { held_payment: { editable: ['amount'] } },
    });
    const callsA = new HeldCalls();
    const a = runtimeOn(storeA, editable(callsA), clockA);
    callsA.passThrough = true;
    const started = await a.operations.startRun({ query: 'pay' }, ann);
    if (started.status !== 'pending_approval') throw new Error('not paused');
    const { sessionId, invocationId } = started;
    callsA.passThrough = false;
    const approvalId = started.approvals[0]?.approvalId ?? '';
    const modelArgs = { amount: 200 };
    const edited = { amount: 150 };
    // Bob pays 150, not 200; the payment starts and A dies inside it, before its effect.
    const lateA = codeOf(
      a.operations.resumeRun(
        {
          sessionId,
          decisions: [
            { approvalId, approved: true, argsHash: hashArgs(modelArgs), editedArgs: edited },
          ],
        },
        bob,
      ),
    );
    const inTool = await callsA.next();

    const callsB = passing();
    const b = runtimeOn(storeB, editable(callsB), clockB);
    lapse(clockB);
    const asked = await b.operations.recoverRun({ invocationId }, ops);
    if (asked.status !== 'pending_approval') throw new Error('not asked');
    // Asked again about the call as edited: its arguments, hash and hint; no vote counts.
    const shown = asked.approvals[0] && presentApproval(asked.approvals[0], asked.decisions);
    expect(shown).toMatchObject({
      approval_id: approvalId,
      may_have_run: true,
      args: edited,
      model_args: modelArgs,
      args_hash: hashArgs(edited),
      edited_by: 'bob',
    });
    expect(shown?.hint).toMatch(/^Pay 150\?/);
    expect(shown?.hint).toMatch(/may already have run/);
    expect(asked.decisions).toEqual([]);
    const session = presentSession(await b.operations.getSession(sessionId, ops));
    expect(session.pending_approvals[0]).toMatchObject({
      args: edited,
      args_hash: hashArgs(edited),
    });
    expect(callsB.effects).toEqual([]);
    // Approving the model's call, or a call named by no hash, approves what will not run.
    const decide = (argsHash?: string) =>
      b.operations.decideApproval({ approvalId, approved: true, argsHash }, bob);
    expect(await codeOf(decide(hashArgs(modelArgs)))).toBe('ARGS_MISMATCH');
    expect(await codeOf(decide())).toBe('ARGS_MISMATCH');
    // The edit's author decides again (the carried edit was not their vote): 150 is paid.
    const done = await decide(hashArgs(edited));
    expect(done).toMatchObject({ status: 'completed', result: 'Done: held_payment' });
    expect(callsB.ranWith).toEqual([edited]);
    // The history shows the call as it ran, and the model's own arguments beside it.
    const history = await b.operations.getSessionMessages(sessionId, ops);
    const calls = history.turns.flatMap((turn) =>
      turn.events.flatMap((e) => (e.type === 'tool-call' ? [[e.args, e.modelArgs]] : [])),
    );
    expect(calls).toEqual([[edited, modelArgs]]);
    inTool.release();
    expect(await lateA).toBe('LEASE_LOST');
    expect(callsA.effects).toEqual([]);
    const { entries } = await b.operations.readAudit({ sessionId }, ops);
    const lines = entries
      .filter((e) => e.approvalId === approvalId)
      .map((e) => [e.action, e.actor, e.argsHash, e.editedArgsHash]);
    expect(lines).toEqual([
      ['requested', 'agent', hashArgs(modelArgs), undefined],
      ['decided', 'bob', hashArgs(modelArgs), hashArgs(edited)],
      ['requested', 'system', hashArgs(modelArgs), hashArgs(edited)],
      ['decided', 'bob', hashArgs(edited), undefined],
      ['executed', 'agent', hashArgs(modelArgs), hashArgs(edited)],
    ]);
  });

  it('runs an approved call of a tool declared idempotent again without asking', async () => {
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    const callsA = new HeldCalls();
    const idempotent = (app: AgentApp): AgentApp => ({
      ...app,
      idempotentTools: new Set(['held_payment']),
    });
    const a = runtimeOn(storeA, idempotent(heldToolApp(callsA)), clockA);
    callsA.passThrough = true;
    const { sessionId, invocationId } = await a.operations.startRun({ query: 'pay' }, ann);
    callsA.passThrough = false;
    void codeOf(a.operations.resumeRun({ sessionId, approved: true }, bob));
    await callsA.next();

    const callsB = passing();
    const b = runtimeOn(storeB, idempotent(heldToolApp(callsB)), clockB);
    lapse(clockB);
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
    });
    expect(callsB.effects).toHaveLength(1);
  });

  it('resumes the run again when the recovering process stops too', async () => {
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    const callsA = new HeldCalls();
    const a = runtimeOn(storeA, heldToolApp(callsA), clockA);
    void codeOf(a.operations.startRun({ query: 'work' }, ann));
    const { sessionId } = await callsA.next();
    const invocationId = (await a.operations.getSession(sessionId, ops)).run?.invocationId ?? '';

    // B takes it over and stops inside the same step; C takes it over from B.
    const callsB = new HeldCalls();
    const b = runtimeOn(storeB, heldToolApp(callsB), clockB);
    lapse(clockB);
    void codeOf(b.operations.recoverRun({ invocationId }, ops));
    await callsB.next();
    const clockC = new ManualClock(clockB.now());
    const c = runtimeOn(storeB, heldToolApp(passing()), clockC);
    expect(await codeOf(c.operations.recoverRun({ invocationId }, ops))).toBe(
      'RUN_NOT_INTERRUPTED',
    );
    lapse(clockC);
    expect(await c.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
      result: 'Done: held_step',
    });
    const { entries } = await c.operations.readAudit({ sessionId }, ops);
    expect(entries.map((e) => e.action)).toEqual([
      'started',
      'recovered',
      'recovered',
      'completed',
    ]);
  });

  it('asks again about an approved call still running when a parallel branch checkpointed', async () => {
    // Regression: a sibling branch's checkpoint marked the run checkpointed while the
    // approved payment was still running; the recovery went on without asking, and ADK
    // ran the payment a second time.
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    const callsA = new HeldCalls();
    const a = runtimeOn(storeA, fanOutApp(callsA), clockA);
    const first = await a.operations.startRun({ query: 'go' }, ann);
    if (first.status !== 'pending_approval') throw new Error('not paused');
    expect(first.approvals.map((x) => x.toolName).sort()).toEqual(['b1_tool', 'slow_pay']);
    // A approves both; its payment starts and never ends while branch b checkpoints.
    const late = codeOf(
      a.operations.resumeRun({ sessionId: first.sessionId, approved: true }, bob),
    );
    await callsA.next();
    expect(callsA.effects).toEqual([]);

    const callsB = passing();
    const b = runtimeOn(storeB, fanOutApp(callsB), clockB);
    lapse(clockB);
    const asked = await b.operations.recoverRun({ invocationId: first.invocationId }, ops);
    expect(asked).toMatchObject({ status: 'pending_approval' });
    if (asked.status !== 'pending_approval') throw new Error('not asked');
    // Both approved calls had started and left no trace: both are asked about again.
    expect(asked.approvals.map((x) => [x.toolName, x.mayHaveRun]).sort()).toEqual([
      ['b1_tool', true],
      ['slow_pay', true],
    ]);
    expect(callsB.effects).toEqual([]);
    void late;
  });

  it('does not run again a parallel branch that finished before the crash', async () => {
    // Regression: a parallel agent recorded its finished branches only once all had
    // ended, so a crash while one branch still worked ran the finished ones again.
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    const quickRuns: string[] = [];
    const app = (calls: HeldCalls): AgentApp => {
      const slow = new FunctionTool({
        name: 'slow_step',
        description: 'Works slowly.',
        parameters: z.object({}),
        execute: async (_args, ctx) => {
          await calls.hold(ctx?.invocationContext.session.id ?? '', 'slow_step');
          return { done: 'slow' };
        },
      });
      const quick = new FunctionTool({
        name: 'quick_step',
        description: 'Works at once.',
        parameters: z.object({}),
        execute: async () => {
          quickRuns.push('quick');
          return { done: 'quick' };
        },
      });
      const agent = (name: string, tool: FunctionTool) =>
        new LlmAgent({
          name,
          instruction: name,
          tools: [tool],
          model: new RulesModel(name, (request) =>
            functionResponsesOf(lastContent(request))[0]
              ? textReply(`${name} done`)
              : toolCall(tool.name, {}),
          ),
        });
      return {
        name: 'fan',
        label: 'fan',
        description: '',
        examples: [],
        rootAgent: new SequentialAgent({
          name: 'outer',
          subAgents: [
            new ParallelAgent({
              name: 'fan',
              subAgents: [agent('quick', quick), agent('slow', slow)],
            }),
          ],
        }),
        hints: {},
        approvalPolicies: {},
      };
    };
    const callsA = new HeldCalls();
    const a = runtimeOn(storeA, app(callsA), clockA);
    void codeOf(a.operations.startRun({ query: 'go' }, ann));
    const { sessionId } = await callsA.next();
    // The quick branch ended, and its end is stored, while the slow one still works.
    await expect
      .poll(async () =>
        (await storeA.loadSession(sessionId, 'fan', 'ann'))?.events.some(
          (e) => e.author === 'fan' && e.actions?.agentState?.finished,
        ),
      )
      .toBe(true);
    const invocationId = (await a.operations.getSession(sessionId, ops)).run?.invocationId ?? '';

    const b = runtimeOn(storeB, app(passing()), clockB);
    lapse(clockB);
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
    });
    expect(quickRuns).toEqual(['quick']);
  });

  it('stops a segment that cannot renew its lease once the lease it holds has passed', async () => {
    // Regression: a segment cut off from the store ran on past its lease beside the
    // instance that recovered the run, and could have had an effect twice.
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const cutOff = unreachableAt(storeA, renewLeaseTransition);
    const callsA = new HeldCalls();
    const a = runtimeOn(cutOff, heldToolApp(callsA), clockA);
    const working = codeOf(a.operations.startRun({ query: 'work' }, ann));
    const call = await callsA.next();
    const invocationId =
      (await a.operations.getSession(call.sessionId, ops)).run?.invocationId ?? '';
    clockA.advance((LEASE_SECONDS * 1000) / 3);
    clockA.advance(LEASE_SECONDS * 1000);
    call.release();
    expect(await working).toBe('OUTCOME_UNKNOWN');
    // Nothing was recorded for it: the run is interrupted, and another instance resumes it.
    const b = runtimeOn(storeB, heldToolApp(passing()), new ManualClock(clockA.now()));
    expect(await b.operations.getRun(invocationId, ops)).toMatchObject({ status: 'interrupted' });
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
    });
  });

  it('gives up an interrupted run, and the next run says the approved call may have run', async () => {
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    const callsA = new HeldCalls();
    const a = runtimeOn(storeA, heldToolApp(callsA), clockA);
    callsA.passThrough = true;
    const { sessionId, invocationId } = await a.operations.startRun({ query: 'pay' }, ann);
    callsA.passThrough = false;
    void codeOf(a.operations.resumeRun({ sessionId, approved: true }, bob));
    await callsA.next();

    const b = runtimeOn(storeB, heldToolApp(passing()), clockB);
    expect(await codeOf(b.operations.cancelRun({ invocationId }, ops))).toBe('RUN_NOT_INTERRUPTED');
    lapse(clockB);
    expect(await b.operations.cancelRun({ invocationId, reason: 'not wanted' }, ops)).toMatchObject(
      {
        status: 'cancelled',
      },
    );
    expect(await b.operations.getRun(invocationId, ops)).toMatchObject({ status: 'cancelled' });
    const { entries } = await b.operations.readAudit({ sessionId }, ops);
    expect(entries.at(-1)).toMatchObject({
      action: 'cancelled',
      actor: 'ops',
      reason: 'not wanted',
    });
    expect(await b.operations.startRun({ sessionId, query: 'hello' }, ann)).toMatchObject({
      status: 'completed',
      result: 'Echo: hello',
    });
    const stored = await storeB.loadSession(sessionId, 'held', 'ann');
    const answers = (stored?.events ?? []).flatMap((e) =>
      (e.content?.parts ?? []).flatMap((p) =>
        p.functionResponse?.name === 'held_payment' ? [p.functionResponse.response] : [],
      ),
    );
    expect(answers.at(-1)).toMatchObject({ error: expect.stringMatching(/may have run/) });
  });

  it('answers a retry of a request whose outcome was unknown with the run as it is now', async () => {
    const [storeA, storeB] = instances.open(kind);
    const clock = new ManualClock();
    const outage = unreachableAt(storeA, finishRunTransition);
    const a = runtimeOn(outage, heldToolApp(passing()), clock);
    const request = {
      operation: 'start',
      caller: 'ann',
      key: `k-${Math.random()}`,
      fingerprint: 'f',
    };
    const start = (requestId: string) => a.operations.startRun({ query: 'hello', requestId }, ann);
    const first = await a.idempotent(request, start).catch((e) => e);
    expect(first).toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    const invocationId = (first as { details: { invocation_id: string } }).details.invocation_id;
    // Still unknown while the run is neither ended nor paused.
    expect(await codeOf(a.idempotent(request, start))).toBe('OUTCOME_UNKNOWN');
    const b = runtimeOn(storeB, heldToolApp(passing()), clock);
    lapse(clock);
    await b.operations.recoverRun({ invocationId }, ops);
    expect(await b.idempotent(request, start)).toMatchObject({
      status: 'completed',
      invocationId,
      result: 'Echo: hello',
    });
  });

  it('frees an Idempotency-Key after a refusal that says try again, and keeps it while the first request works', async () => {
    const [store] = instances.open(kind);
    const clock = new ManualClock();
    const runtime = runtimeOn(store, heldToolApp(passing()), clock);
    const request = {
      operation: 'start',
      caller: 'ann',
      key: `k-${Math.random()}`,
      fingerprint: 'f',
    };
    let acted = 0;
    const busyOnce = async () => {
      acted += 1;
      if (acted === 1) throw new HoldpointError('SESSION_BUSY', 'A run is in progress.');
      return runtime.operations.startRun({ query: 'hello' }, ann);
    };
    expect(await codeOf(runtime.idempotent(request, busyOnce))).toBe('SESSION_BUSY');
    expect(await runtime.idempotent(request, busyOnce)).toMatchObject({ status: 'completed' });
    expect(acted).toBe(2);

    // A first request that works for longer than two leases keeps its key: the retry waits.
    const slow = { ...request, key: `k-${Math.random()}` };
    let finish!: () => void;
    const first = runtime.idempotent(slow, async () => {
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      return runtime.operations.startRun({ query: 'slow' }, ann);
    });
    await expect.poll(() => typeof finish).toBe('function');
    const retry = runtime.idempotent(slow, async () => {
      throw new Error('the retry must not act');
    });
    for (let i = 0; i < 9; i++) clock.advance((LEASE_SECONDS * 1000) / 3);
    finish();
    const [a, b] = await Promise.all([first, retry]);
    expect(b).toEqual(a);
  });

  it('refuses to go on with a run whose app changed, unless the app declares it compatible', async () => {
    const [storeA, storeB] = instances.open(kind);
    const clock = new ManualClock();
    const v1 = heldToolApp(passing());
    const paused = await runtimeOn(storeA, v1, clock).operations.startRun({ query: 'pay' }, ann);
    const { sessionId, invocationId } = paused;
    const v2 = heldToolApp(passing());
    (v2.rootAgent as LlmAgent).tools.push(
      new FunctionTool({
        name: 'held_refund',
        description: 'Refunds.',
        parameters: z.object({}),
        execute: async () => ({}),
      }),
    );
    const b = runtimeOn(storeB, v2, clock);
    const refused = await b.operations
      .resumeRun({ sessionId, approved: true }, bob)
      .catch((e) => e);
    expect(refused).toMatchObject({
      code: 'APP_CHANGED',
      details: { invocation_id: invocationId, added: ['tool held held_refund'], removed: [] },
    });
    // Refused before anything was recorded: the pause still waits.
    expect((await b.operations.getSession(sessionId, ops)).pendingApprovals).toHaveLength(1);
    expect((await b.operations.readAudit({ sessionId }, ops)).entries.map((e) => e.action)).toEqual(
      ['started', 'requested'],
    );

    const fingerprint = (refused as { details: { run_fingerprint: string } }).details
      .run_fingerprint;
    const compatible = runtimeOn(storeB, { ...v2, compatibleWith: new Set([fingerprint]) }, clock);
    expect(await compatible.operations.resumeRun({ sessionId, approved: true }, bob)).toMatchObject(
      {
        status: 'completed',
      },
    );
  });

  it('refuses to resume an interrupted run whose app changed', async () => {
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    const callsA = new HeldCalls();
    const a = runtimeOn(storeA, heldToolApp(callsA), clockA);
    void codeOf(a.operations.startRun({ query: 'work' }, ann));
    const { sessionId } = await callsA.next();
    const invocationId = (await a.operations.getSession(sessionId, ops)).run?.invocationId ?? '';
    const v2 = heldToolApp(passing());
    (v2.rootAgent as LlmAgent).tools.pop();
    const b = runtimeOn(storeB, v2, clockB);
    lapse(clockB);
    expect(await codeOf(b.operations.recoverRun({ invocationId }, ops))).toBe('APP_CHANGED');
    expect(await b.operations.getRun(invocationId, ops)).toMatchObject({ status: 'interrupted' });
  });

  it('refuses to resume a run that does not exist or already ended', async () => {
    const [store] = instances.open(kind);
    const clock = new ManualClock();
    const runtime = runtimeOn(store, heldToolApp(passing()), clock);
    expect(await codeOf(runtime.operations.recoverRun({ invocationId: 'inv-nope' }, ops))).toBe(
      'RUN_NOT_FOUND',
    );
    const done = await runtime.operations.startRun({ query: 'hello' }, ann);
    lapse(clock);
    expect(
      await codeOf(runtime.operations.recoverRun({ invocationId: done.invocationId }, ops)),
    ).toBe('RUN_NOT_INTERRUPTED');
    expect(await runtime.operations.getRun(done.invocationId, ops)).toMatchObject({
      status: 'completed',
    });
  });
});
