import { readFileSync } from 'node:fs';
import { FunctionTool, LlmAgent } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RulesModel } from '../agents/rules-model.js';
import { SYSTEM } from '../core/principal.js';
import { RUNTIME_OPERATIONS, type RuntimeOperations } from '../runtime/operations.js';
import type { RunEvent } from '../runtime/run-event.js';
import { OPERATIONS_BY_RESOURCE } from '../transports/http/operations/index.js';
import { createHoldpoint } from './create-holdpoint.js';
import { defineApp } from './define-app.js';
import { libraryOperations, type OperationName } from './library-operations.js';

const NAMES = Object.keys(RUNTIME_OPERATIONS) as OperationName[];

/** HTTP operations that are the transport's own, not a runtime operation's route. */
const HTTP_ONLY = [
  'chat',
  'runAgUi',
  'getA2aAgentCard',
  'a2aJsonRpc',
  'mcp',
  'approvalEvents',
  'getMe',
  'listApps',
  'health',
];

/** A payments app whose tool waits for approval, on the offline rules model. */
function paymentsApp() {
  const pay = new FunctionTool({
    name: 'pay',
    description: 'Pays someone.',
    parameters: z.object({ amount: z.number() }),
    execute: ({ amount }) => ({ paid: amount }),
    requireConfirmation: true,
  });
  const model = new RulesModel('pay', (request) => {
    const last = request.contents.at(-1)?.parts?.[0];
    if (last?.functionResponse) return { role: 'model', parts: [{ text: 'Paid.' }] };
    return { role: 'model', parts: [{ functionCall: { name: 'pay', args: { amount: 5 } } }] };
  });
  return defineApp({
    name: 'payments',
    agent: new LlmAgent({ name: 'payer', model, instruction: 'Pay.', tools: [pay] }),
    approvals: { pay: { hint: 'Pay 5?' } },
  });
}

describe('the library operations', () => {
  it('are every runtime operation, under its one name, each calling it', async () => {
    const calls: unknown[][] = [];
    const recording = Object.fromEntries(
      NAMES.map((name) => [name, (...args: unknown[]) => calls.push([name, ...args])]),
    ) as unknown as RuntimeOperations;
    const library = libraryOperations(recording) as unknown as Record<
      string,
      (input: unknown, as: unknown, ...extras: unknown[]) => unknown
    >;
    expect(Object.keys(library).sort()).toEqual([...NAMES].sort());
    for (const name of NAMES) {
      await library[name]?.({ probe: name }, { id: 'alice', roles: ['approver'] }, 'extra');
    }
    expect(calls).toEqual(
      NAMES.map((name) => [name, { probe: name }, { id: 'alice', roles: ['approver'] }, 'extra']),
    );
  });

  it('are methods of a Holdpoint, under the names of the HTTP API', () => {
    const holdpoint = createHoldpoint({ apps: [paymentsApp()], sweepIntervalSeconds: false });
    for (const name of NAMES) expect(typeof holdpoint[name], name).toBe('function');
    for (const operation of Object.values(OPERATIONS_BY_RESOURCE).flat()) {
      if (HTTP_ONLY.includes(operation.name)) continue;
      expect(NAMES, `HTTP ${operation.name} is a runtime operation`).toContain(operation.name);
      // What it calls in the runtime is the operation of its own name, and no other.
      const called = [...operation.act.toString().matchAll(/[oO]perations\.(\w+)/g)].map(
        (m) => m[1],
      );
      expect(new Set(called), operation.name).toEqual(new Set([operation.name]));
    }
    return holdpoint.close();
  });

  it('are each a row of the methods table in docs/library.md', () => {
    const doc = readFileSync(new URL('../../docs/library.md', import.meta.url), 'utf8');
    const missing = NAMES.filter(
      (name) => !doc.includes(`| \`${name}(`) && !doc.includes(`, \`${name}(`),
    );
    expect(missing).toEqual([]);
  });

  it('take who acts after the input: a person for what a person does, Holdpoint itself else', async () => {
    const holdpoint = createHoldpoint({ apps: [paymentsApp()], sweepIntervalSeconds: false });
    await expect(holdpoint.startRun({ query: 'pay' }, undefined as never)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'as' },
    });
    const paused = await holdpoint.startRun({ query: 'pay' }, 'ann');
    if (paused.status !== 'pending_approval') throw new Error('expected a pause');
    const { sessionId } = paused;
    const approvalId = paused.approvals[0]?.approvalId ?? '';

    const events: RunEvent[] = [];
    const unsubscribe = await holdpoint.watchSession(sessionId, undefined, (e) => events.push(e));
    expect((await holdpoint.getSession(sessionId)).meta.userId).toBe('ann');
    expect((await holdpoint.listApprovals({})).approvals.map((a) => a.approvalId)).toEqual([
      approvalId,
    ]);
    expect(await holdpoint.getApproval(approvalId)).toMatchObject({ sessionId, app: 'payments' });
    expect(await holdpoint.getInboxSummary({}, SYSTEM)).toMatchObject({ pending: 1 });
    await expect(holdpoint.getStoreStats({}, 'ann')).rejects.toMatchObject({ code: 'FORBIDDEN' });

    // What follows the actor is checked too: a request id is an id.
    await expect(
      holdpoint.decideApproval({ approvalId, approved: true }, 'ann', undefined, ''),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const done = await holdpoint.decideApproval({ approvalId, approved: true }, 'ann');
    expect(done).toMatchObject({ status: 'completed', result: 'Paid.' });
    unsubscribe();
    expect(events.map((e) => e.type)).toContain('outcome');
    const audit = await holdpoint.readAudit({ sessionId });
    expect(audit.entries.find((e) => e.action === 'decided')?.actor).toBe('ann');
    expect((await holdpoint.listSessions({ userId: 'ann' })).sessions).toHaveLength(1);
    const { turns } = await holdpoint.getSessionMessages(sessionId);
    expect(turns.length).toBeGreaterThan(0);
    expect(await holdpoint.getRun(paused.invocationId)).toMatchObject({ status: 'completed' });
    await holdpoint.close();
  });
});
