import { FunctionTool, LlmAgent, LongRunningFunctionTool } from '@google/adk';
import type { Content } from '@google/genai';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import payments from '../examples/payments/app.js';
import { functionCallsOf, functionResponsesOf, textReply } from '../examples/shared/llm-history.js';
import { RulesModel } from '../src/agents/rules-model.js';
import { hashArgs } from '../src/core/hash.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import type { Principal } from '../src/core/principal.js';
import type { AuditEntry } from '../src/core/types.js';
import { defineApp, resolveApp } from '../src/library/define-app.js';
import type { HoldpointRuntime } from '../src/runtime/holdpoint-runtime.js';
import type { PendingOutcome, RunOutcome } from '../src/runtime/run-outcome.js';
import type { HoldpointStore } from '../src/store/store.js';
import { TestStores } from '../src/store/test-stores.test-support.js';
import { ann, as } from './support/principals.js';
import { runtimeOn } from './support/runtime-on.js';

// Decisions as rich as people's answers (issue 25): edit the call, answer in the tool's
// place, reject with a reason the model reads — each bound to the arguments seen.
const testStores = new TestStores();
afterEach(() => testStores.close());
afterAll(() => testStores.cleanup());
const stores = testStores.byKind;

/** How often each tool of the test app really ran. */
const ran = { transfer: 0, lookup: 0, archive: 0 };
beforeEach(() => {
  ran.transfer = 0;
  ran.lookup = 0;
  ran.archive = 0;
});

/** The latest model turn's calls and the tool results after it, as the model saw them. */
function seen(contents: Content[]): string {
  const results = functionResponsesOf(contents.at(-1));
  const turn = [...contents].reverse().find((c) => functionCallsOf(c).length > 0);
  const calls = functionCallsOf(turn).map((c) => ({ name: c.name, args: c.args }));
  return JSON.stringify({ calls, results: results.map((r) => [r.name, r.response]) });
}

const model = new RulesModel('rich', (request) => {
  const last = request.contents.at(-1);
  if (functionResponsesOf(last).length > 0) return textReply(seen(request.contents));
  const text = last?.parts?.map((p) => p.text ?? '').join('') ?? '';
  const call = (name: string, args: Record<string, unknown>) => ({ functionCall: { name, args } });
  if (text === 'all') {
    return {
      role: 'model',
      parts: [
        call('transfer', { amount: 100, to: 'Ann' }),
        call('lookup', { q: 'rate' }),
        call('archive', { id: 'a1' }),
        call('transfer', { amount: 5, to: 'Bo' }),
      ],
    };
  }
  if (text === 'history') {
    // Every call the model's history shows, as the model reads it on a later turn.
    const calls = request.contents.flatMap((c) => functionCallsOf(c)).map((c) => c.args);
    return textReply(JSON.stringify(calls));
  }
  if (text === 'lookup') return { role: 'model', parts: [call('lookup', { q: 'rate' })] };
  if (text === 'archive') return { role: 'model', parts: [call('archive', { id: 'a1' })] };
  if (text === 'ask') return { role: 'model', parts: [call('ask_value', { question: 'Which?' })] };
  return { role: 'model', parts: [call('transfer', { amount: 100, to: 'Ann' })] };
});

const richApp = resolveApp(
  defineApp({
    name: 'rich',
    agent: new LlmAgent({
      name: 'rich',
      model,
      instruction: 'Act.',
      tools: [
        new FunctionTool({
          name: 'transfer',
          description: 'Sends money.',
          parameters: z.object({ amount: z.number().positive(), to: z.string().min(1) }),
          requireConfirmation: true,
          execute: async ({ amount, to }) => {
            ran.transfer++;
            return { status: 'sent', amount, to };
          },
        }),
        new FunctionTool({
          name: 'lookup',
          description: 'Looks something up.',
          parameters: z.object({ q: z.string() }),
          requireConfirmation: true,
          execute: async () => {
            ran.lookup++;
            return { answer: 'from the tool' };
          },
        }),
        new FunctionTool({
          name: 'archive',
          description: 'Archives a record.',
          parameters: z.object({ id: z.string() }),
          requireConfirmation: true,
          execute: async () => {
            ran.archive++;
            return { status: 'archived' };
          },
        }),
        new LongRunningFunctionTool({
          name: 'ask_value',
          description: 'Asks a person for a value.',
          parameters: z.object({ question: z.string() }),
          execute: async () => undefined,
        }),
      ],
    }),
    approvals: {
      transfer: {
        editable: ['amount'],
        editNeedsApproval: (before, after) => Number(after.amount) > Number(before.amount),
      },
      lookup: { respond: { schema: z.object({ answer: z.string() }) } },
    },
  }),
  { model: 'rules' },
);

const paymentsApp = resolveApp(payments, { model: 'rules' });
const maria = as('maria', 'approver');
const jun = as('jun', 'approver');
const kai = as('kai', 'approver');
const admin = as('admin', 'admin');

function pending(outcome: RunOutcome): PendingOutcome {
  if (outcome.status !== 'pending_approval') {
    throw new Error(`expected a pause, got ${JSON.stringify(outcome)}`);
  }
  return outcome;
}

function resultOf(outcome: RunOutcome): string {
  if (outcome.status !== 'completed') throw new Error(`not completed: ${JSON.stringify(outcome)}`);
  return outcome.result;
}

describe.each(Object.keys(stores))('rich decisions (%s)', (kind) => {
  let store: HoldpointStore;
  let clock: ManualClock;
  beforeEach(() => {
    store = (stores[kind] as () => HoldpointStore)();
    clock = new ManualClock();
  });

  async function auditOf(runtime: HoldpointRuntime, sessionId: string): Promise<AuditEntry[]> {
    return (await runtime.operations.readAudit({ sessionId }, as('root', 'admin'))).entries;
  }

  describe('payments', () => {
    let runtime: HoldpointRuntime;
    beforeEach(() => {
      runtime = runtimeOn(store, paymentsApp, clock);
    });

    async function askJiro(): Promise<PendingOutcome> {
      return pending(await runtime.operations.startRun({ query: 'Send $200 to Jiro' }, ann));
    }

    it('edits, then approves: the payment runs with the edit, the model sees the call as it ran, the audit has both hashes', async () => {
      const pause = await askJiro();
      const approval = pause.approvals[0];
      expect(approval?.decisionPolicy).toMatchObject({
        editable: ['amount', 'recipient', 'currency'],
        editMayNeedApproval: true,
        argsSchema: { type: 'object', properties: { amount: { type: 'number' } } },
      });
      const edited = { amount: 150, recipient: 'Jiro', currency: 'USD' };
      const done = await runtime.operations.resumeRun(
        {
          sessionId: pause.sessionId,
          decisions: [
            {
              approvalId: approval?.approvalId as string,
              approved: true,
              argsHash: hashArgs(approval?.args),
              editedArgs: edited,
            },
          ],
        },
        maria,
      );
      expect(resultOf(done)).toMatch(/^Sent 150 USD to Jiro \(transaction TXN-/);
      const audit = await auditOf(runtime, pause.sessionId);
      const decided = audit.find((e) => e.action === 'decided');
      expect(decided).toMatchObject({
        actor: 'maria',
        approved: true,
        argsHash: hashArgs(approval?.args),
        editedArgsHash: hashArgs(edited),
      });
      expect(audit.find((e) => e.action === 'executed')).toMatchObject({
        argsHash: hashArgs(approval?.args),
        editedArgsHash: hashArgs(edited),
      });
      const { turns } = await runtime.operations.getSessionMessages(pause.sessionId, ann);
      const call = turns.flatMap((t) => t.events).find((e) => e.type === 'tool-call');
      expect(call).toMatchObject({ args: edited, modelArgs: approval?.args });
    });

    it('shows the model the edited recipient, and says the reason of a rejection', async () => {
      const first = await askJiro();
      const a = first.approvals[0];
      const edited = { amount: 200, recipient: 'Jiro Tanaka', currency: 'USD' };
      const sent = await runtime.operations.resumeRun(
        {
          sessionId: first.sessionId,
          decisions: [
            {
              approvalId: a?.approvalId as string,
              approved: true,
              argsHash: hashArgs(a?.args),
              editedArgs: edited,
            },
          ],
        },
        maria,
      );
      expect(resultOf(sent)).toMatch(/to Jiro Tanaka/);
      const second = await askJiro();
      const rejected = await runtime.operations.resumeRun(
        {
          sessionId: second.sessionId,
          decisions: [
            {
              approvalId: second.approvals[0]?.approvalId as string,
              approved: false,
              reason: 'the invoice was already paid',
            },
          ],
        },
        maria,
      );
      expect(resultOf(rejected)).toBe(
        'The payment to Jiro was not sent: the invoice was already paid.',
      );
    });

    it('refuses an edit that breaks the tool schema, and one of a field that is not editable', async () => {
      const pause = await askJiro();
      const a = pause.approvals[0];
      const decide = (editedArgs: Record<string, unknown>) =>
        runtime.operations
          .resumeRun(
            {
              sessionId: pause.sessionId,
              decisions: [
                {
                  approvalId: a?.approvalId as string,
                  approved: true,
                  argsHash: hashArgs(a?.args),
                  editedArgs,
                },
              ],
            },
            maria,
          )
          .catch((e: unknown) => e);
      expect(await decide({ amount: -5, recipient: 'Jiro', currency: 'USD' })).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { field: 'amount' },
      });
      expect(
        await decide({ amount: 200, recipient: 'Jiro', currency: 'USD', memo: 'x' }),
      ).toMatchObject({ code: 'EDIT_NOT_ALLOWED', details: { field: 'memo' } });
      expect(
        (await decide({ amount: 200, recipient: 'Jiro', currency: 'USD', memo: 'x' })) as Error,
      ).toHaveProperty('message', expect.stringContaining('"memo"'));
      // Someone who may not decide learns nothing of the tool's policy from a refusal.
      const stranger = await runtime.operations
        .resumeRun(
          {
            sessionId: pause.sessionId,
            decisions: [
              {
                approvalId: a?.approvalId as string,
                approved: true,
                argsHash: hashArgs(a?.args),
                editedArgs: { memo: 'x' },
              },
            ],
          },
          as('eve'),
        )
        .catch((e: unknown) => e);
      expect(stranger).toMatchObject({ code: 'FORBIDDEN' });
      // Nothing was recorded: the pause still waits.
      expect((await store.getSnapshot(pause.sessionId))?.pause?.decisions).toEqual([]);
    });

    it('an edit that raises the amount needs a second approver', async () => {
      const pause = await askJiro();
      const a = pause.approvals[0];
      const approvalId = a?.approvalId as string;
      const seenHash = hashArgs(a?.args);
      const edited = { amount: 300, recipient: 'Jiro', currency: 'USD' };
      const editedHash = hashArgs(edited);
      const first = await runtime.operations.resumeRun(
        {
          sessionId: pause.sessionId,
          decisions: [{ approvalId, approved: true, argsHash: seenHash, editedArgs: edited }],
        },
        maria,
      );
      expect(first.status).toBe('pending_approval');
      const again = (by: Principal, argsHash?: string) =>
        runtime.operations
          .resumeRun(
            { sessionId: pause.sessionId, decisions: [{ approvalId, approved: true, argsHash }] },
            by,
          )
          .catch((e: unknown) => e);
      expect(await again(maria, editedHash)).toMatchObject({ code: 'ALREADY_VOTED' });
      // Someone approving what the model asked for approves a call that no longer exists.
      expect(await again(kai, seenHash)).toMatchObject({
        code: 'ARGS_MISMATCH',
        details: { args_hash: editedHash },
      });
      // …and one naming no hash must say what they decided on.
      expect(await again(kai)).toMatchObject({ code: 'ARGS_MISMATCH' });
      const done = await again(jun, editedHash);
      expect(resultOf(done as RunOutcome)).toMatch(/^Sent 300 USD to Jiro/);
    });

    it('an edit that lowers a raise still needs a second approver: the model asked less', async () => {
      const pause = await askJiro();
      const a = pause.approvals[0];
      const approvalId = a?.approvalId as string;
      const raised = { amount: 300, recipient: 'Jiro', currency: 'USD' };
      const first = await runtime.operations.resumeRun(
        {
          sessionId: pause.sessionId,
          decisions: [
            { approvalId, approved: true, argsHash: hashArgs(a?.args), editedArgs: raised },
          ],
        },
        maria,
      );
      expect(first.status).toBe('pending_approval');
      // 250 is less than maria's 300 but more than the model's 200: still a raise.
      const lowered = { amount: 250, recipient: 'Jiro', currency: 'USD' };
      const second = await runtime.operations.resumeRun(
        {
          sessionId: pause.sessionId,
          decisions: [
            { approvalId, approved: true, argsHash: hashArgs(raised), editedArgs: lowered },
          ],
        },
        kai,
      );
      expect(second.status).toBe('pending_approval');
      const decisions = (await store.getSnapshot(pause.sessionId))?.pause?.decisions;
      expect(decisions?.at(-1)).toMatchObject({ decidedBy: 'kai', editNeedsApproval: true });
      const done = await runtime.operations.resumeRun(
        {
          sessionId: pause.sessionId,
          decisions: [{ approvalId, approved: true, argsHash: hashArgs(lowered) }],
        },
        jun,
      );
      expect(resultOf(done)).toMatch(/^Sent 250 USD to Jiro/);
    });

    it('a lowering edit settles alone; an edit without the hash seen is refused', async () => {
      const pause = await askJiro();
      const a = pause.approvals[0];
      const approvalId = a?.approvalId as string;
      const edited = { amount: 20, recipient: 'Jiro', currency: 'USD' };
      const refused = await runtime.operations
        .resumeRun(
          {
            sessionId: pause.sessionId,
            decisions: [{ approvalId, approved: true, editedArgs: edited }],
          },
          maria,
        )
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { missing: 'args_hash' },
      });
      const done = await runtime.operations.resumeRun(
        {
          sessionId: pause.sessionId,
          decisions: [
            { approvalId, approved: true, argsHash: hashArgs(a?.args), editedArgs: edited },
          ],
        },
        maria,
      );
      expect(resultOf(done)).toMatch(/^Sent 20 USD to Jiro/);
    });
  });

  describe('answers and mixes', () => {
    let runtime: HoldpointRuntime;
    beforeEach(() => {
      runtime = runtimeOn(store, richApp, clock);
    });

    it('answers in the tool place: the tool does not run, the audit says so', async () => {
      const pause = pending(await runtime.operations.startRun({ query: 'lookup' }, ann));
      const a = pause.approvals[0];
      const response = { answer: 'from a person' };
      const done = await runtime.operations.resumeRun(
        {
          sessionId: pause.sessionId,
          decisions: [
            {
              approvalId: a?.approvalId as string,
              approved: true,
              argsHash: hashArgs(a?.args),
              response,
            },
          ],
        },
        admin,
      );
      expect(ran.lookup).toBe(0);
      expect(JSON.parse(resultOf(done)).results).toEqual([['lookup', response]]);
      const audit = await auditOf(runtime, pause.sessionId);
      expect(audit.find((e) => e.action === 'decided')).toMatchObject({
        responseHash: hashArgs(response),
      });
      expect(audit.some((e) => e.action === 'executed')).toBe(false);
    });

    it('refuses an answer the tool does not allow, or one its schema refuses', async () => {
      const archive = pending(await runtime.operations.startRun({ query: 'archive' }, ann));
      const a = archive.approvals[0];
      expect(
        await runtime.operations
          .resumeRun(
            {
              sessionId: archive.sessionId,
              decisions: [
                {
                  approvalId: a?.approvalId as string,
                  approved: true,
                  argsHash: hashArgs(a?.args),
                  response: 'done',
                },
              ],
            },
            admin,
          )
          .catch((e: unknown) => e),
      ).toMatchObject({ code: 'RESPOND_NOT_ALLOWED', details: { tool_name: 'archive' } });
      const lookup = pending(await runtime.operations.startRun({ query: 'lookup' }, as('zed')));
      const l = lookup.approvals[0];
      expect(
        await runtime.operations
          .resumeRun(
            {
              sessionId: lookup.sessionId,
              decisions: [
                {
                  approvalId: l?.approvalId as string,
                  approved: true,
                  argsHash: hashArgs(l?.args),
                  response: { answer: 5 },
                },
              ],
            },
            admin,
          )
          .catch((e: unknown) => e),
      ).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'response.answer' } });
      expect(ran.archive + ran.lookup).toBe(0);
    });

    it('an input approval takes its value as a response, refuses an edit, and passes a reason on', async () => {
      const pause = pending(await runtime.operations.startRun({ query: 'ask' }, ann));
      const a = pause.approvals[0];
      expect(a?.kind).toBe('input');
      const approvalId = a?.approvalId as string;
      expect(
        await runtime.operations
          .resumeRun(
            {
              sessionId: pause.sessionId,
              decisions: [
                {
                  approvalId,
                  approved: true,
                  argsHash: hashArgs(a?.args),
                  editedArgs: { question: 'x' },
                },
              ],
            },
            admin,
          )
          .catch((e: unknown) => e),
      ).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'edited_args' } });
      const done = await runtime.operations.resumeRun(
        {
          sessionId: pause.sessionId,
          decisions: [{ approvalId, approved: true, response: { choice: 'B' } }],
        },
        admin,
      );
      expect(JSON.parse(resultOf(done)).results).toEqual([['ask_value', { choice: 'B' }]]);
      const again = pending(await runtime.operations.startRun({ query: 'ask' }, ann));
      const rejected = await runtime.operations.resumeRun(
        {
          sessionId: again.sessionId,
          decisions: [
            {
              approvalId: again.approvals[0]?.approvalId as string,
              approved: false,
              reason: 'not now',
            },
          ],
        },
        admin,
      );
      expect(JSON.parse(resultOf(rejected)).results).toEqual([
        ['ask_value', { error: 'rejected', reason: 'not now' }],
      ]);
    });

    it('decides a parallel pause in one batch: approve, edit, respond and reject, one resume', async () => {
      const pause = pending(await runtime.operations.startRun({ query: 'all' }, ann));
      const [big, lookup, archive, small] = pause.approvals;
      const hash = (i: number) => hashArgs(pause.approvals[i]?.args);
      const done = await runtime.operations.resumeRun(
        {
          sessionId: pause.sessionId,
          pauseId: pause.pauseId,
          decisions: [
            {
              approvalId: big?.approvalId as string,
              approved: true,
              argsHash: hash(0),
              editedArgs: { amount: 60, to: 'Ann' },
            },
            {
              approvalId: lookup?.approvalId as string,
              approved: true,
              argsHash: hash(1),
              response: { answer: 'told' },
            },
            { approvalId: archive?.approvalId as string, approved: false, reason: 'keep it' },
            { approvalId: small?.approvalId as string, approved: true, argsHash: hash(3) },
          ],
        },
        admin,
      );
      const model = JSON.parse(resultOf(done));
      expect(model.calls).toEqual([
        { name: 'transfer', args: { amount: 60, to: 'Ann' } },
        { name: 'lookup', args: { q: 'rate' } },
        { name: 'archive', args: { id: 'a1' } },
        { name: 'transfer', args: { amount: 5, to: 'Bo' } },
      ]);
      expect(model.results).toEqual([
        ['transfer', { status: 'sent', amount: 60, to: 'Ann' }],
        ['lookup', { answer: 'told' }],
        ['archive', { error: 'This tool call is rejected.', reason: 'keep it' }],
        ['transfer', { status: 'sent', amount: 5, to: 'Bo' }],
      ]);
      expect(ran).toEqual({ transfer: 2, lookup: 0, archive: 0 });
      const audit = await auditOf(runtime, pause.sessionId);
      expect(audit.filter((e) => e.action === 'resumed')).toHaveLength(1);
    });

    it('shows the edited call on every later turn of the session', async () => {
      const pause = pending(await runtime.operations.startRun({ query: 'pay' }, ann));
      const a = pause.approvals[0];
      await runtime.operations.resumeRun(
        {
          sessionId: pause.sessionId,
          decisions: [
            {
              approvalId: a?.approvalId as string,
              approved: true,
              argsHash: hashArgs(a?.args),
              editedArgs: { amount: 40, to: 'Ann' },
            },
          ],
        },
        admin,
      );
      const later = await runtime.operations.startRun(
        { query: 'history', sessionId: pause.sessionId },
        ann,
      );
      expect(JSON.parse(resultOf(later))).toEqual([{ amount: 40, to: 'Ann' }]);
      // The stored call keeps the model's own arguments (the audit's truth).
      const { turns } = await runtime.operations.getSessionMessages(pause.sessionId, ann);
      expect(turns[0]?.events.find((e) => e.type === 'tool-call')).toMatchObject({
        args: { amount: 40, to: 'Ann' },
        modelArgs: { amount: 100, to: 'Ann' },
      });
    });

    it('records nothing of a batch with one invalid part', async () => {
      const pause = pending(await runtime.operations.startRun({ query: 'all' }, ann));
      const [big, lookup, archive] = pause.approvals;
      const refused = await runtime.operations
        .resumeRun(
          {
            sessionId: pause.sessionId,
            decisions: [
              {
                approvalId: big?.approvalId as string,
                approved: true,
                argsHash: hashArgs(big?.args),
              },
              { approvalId: lookup?.approvalId as string, approved: false },
              {
                approvalId: archive?.approvalId as string,
                approved: true,
                argsHash: hashArgs(archive?.args),
                editedArgs: { id: 'a2' },
              },
            ],
          },
          admin,
        )
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({
        code: 'EDIT_NOT_ALLOWED',
        details: { tool_name: 'archive' },
      });
      expect((await store.getSnapshot(pause.sessionId))?.pause?.decisions).toEqual([]);
    });

    it('two people deciding one parallel pause with different mixes: one wins, the other gets ALREADY_DECIDED, one resume', async () => {
      const pause = pending(await runtime.operations.startRun({ query: 'all' }, ann));
      const other = runtimeOn(store, richApp, clock);
      const all = (edit: number, by: Principal, on: HoldpointRuntime) =>
        on.operations
          .resumeRun(
            {
              sessionId: pause.sessionId,
              pauseId: pause.pauseId,
              decisions: pause.approvals.map((a, i) =>
                i === 0
                  ? {
                      approvalId: a.approvalId,
                      approved: true,
                      argsHash: hashArgs(a.args),
                      editedArgs: { amount: edit, to: 'Ann' },
                    }
                  : i === 1
                    ? {
                        approvalId: a.approvalId,
                        approved: true,
                        argsHash: hashArgs(a.args),
                        response: { answer: by.id },
                      }
                    : { approvalId: a.approvalId, approved: i === 3 },
              ),
            },
            by,
          )
          .catch((e: unknown) => e);
      const results = await Promise.all([
        all(10, admin, runtime),
        all(20, as('root', 'admin'), other),
      ]);
      const won = results.filter((r) => (r as RunOutcome).status === 'completed');
      const lost = results.filter((r) => (r as { code?: string }).code === 'ALREADY_DECIDED');
      expect(results.length, JSON.stringify(results)).toBe(2);
      expect([won.length, lost.length]).toEqual([1, 1]);
      expect(ran.transfer).toBe(2);
      const audit = await auditOf(runtime, pause.sessionId);
      expect(audit.filter((e) => e.action === 'resumed')).toHaveLength(1);
      expect(audit.filter((e) => e.action === 'decided')).toHaveLength(4);
    });
  });
});
