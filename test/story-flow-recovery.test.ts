import type { LlmRequest } from '@google/adk';
import { afterAll, describe, expect, it } from 'vitest';
import { storyFlowAgent } from '../examples/story-flow/app.js';
import { storyRule } from '../examples/story-flow/story-rules.js';
import type { AgentApp } from '../src/agents/agent-app.js';
import { RulesModel } from '../src/agents/rules-model.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import { checkpointTransition } from '../src/session/transitions/index.js';
import type { HoldpointStore } from '../src/store/store.js';
import { TestStores } from '../src/store/test-stores.test-support.js';
import { ann, as, ops } from './support/principals.js';
import { LEASE_SECONDS, runtimeOn } from './support/runtime-on.js';
import { storeWithTransition } from './support/store-with.js';

// Seed 002's story flow, killed after each of its checkpoints: the process stops right
// after the checkpoint is stored. Another instance resumes the run by its invocation id;
// it must go on at the next step, with no LLM call made twice and the same outcome.
const QUERY = 'Write a story about a brave kitten';
const testStores = new TestStores();
afterAll(() => testStores.cleanup());

const stores = testStores.byKind;

/** The story flow on the offline rules, counting the LLM calls of each agent in `calls`. */
function storyApp(calls: Map<string, number>): AgentApp {
  const rootAgent = storyFlowAgent(
    (name) =>
      new RulesModel(name, (request: LlmRequest) => {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        return storyRule(name)(request);
      }),
  );
  return {
    name: 'story-flow',
    label: 'Story flow',
    description: '',
    examples: [],
    rootAgent,
    hints: {},
    approvalPolicies: {},
  };
}

/**
 * `store` as a process sees it that stops right after its `count`-th checkpoint is
 * stored: that call reaches the store, and its answer never comes back. `stopped`
 * resolves then.
 */
function stopsAfterCheckpoint(
  store: HoldpointStore,
  count: number,
): { store: HoldpointStore; stopped: Promise<void> } {
  let seen = 0;
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const proxy = storeWithTransition(store, checkpointTransition, (checkpoint) => async (end) => {
    await checkpoint(end);
    seen += 1;
    if (seen === count) {
      stop();
      await new Promise(() => {});
    }
  });
  return { store: proxy, stopped };
}

function sum(calls: Map<string, number>, more: Map<string, number>): Record<string, number> {
  const total: Record<string, number> = {};
  for (const [name, n] of [...calls, ...more]) total[name] = (total[name] ?? 0) + n;
  return total;
}

describe.each(Object.keys(stores))(
  'story-flow resumes at the next step after a crash (%s)',
  (kind) => {
    it('runs each step once, whichever checkpoint it was stopped after', async () => {
      const store = (stores[kind] as () => HoldpointStore)();
      // A run nobody stops: how many checkpoints it stores, and what it calls and ends with.
      const baseCalls = new Map<string, number>();
      let checkpoints = 0;
      const counting = storeWithTransition(store, checkpointTransition, (checkpoint) => (end) => {
        checkpoints += 1;
        return checkpoint(end);
      });
      const base = runtimeOn(counting, storyApp(baseCalls), new ManualClock());
      const basePause = await base.operations.startRun({ query: QUERY }, ann);
      expect(basePause.status).toBe('pending_approval');
      const stepsBeforeApproval = checkpoints;
      const callsBeforeApproval = Object.fromEntries(baseCalls);
      const baseState = (await base.operations.getSession(basePause.sessionId, ops)).state;
      const baseDone = await base.operations.resumeRun(
        {
          sessionId: basePause.sessionId,
          approved: true,
        },
        as('ed', 'admin'),
      );
      expect(stepsBeforeApproval).toBeGreaterThanOrEqual(10);

      for (let k = 1; k <= stepsBeforeApproval; k++) {
        const clockA = new ManualClock();
        const callsA = new Map<string, number>();
        const dying = stopsAfterCheckpoint(store, k);
        const a = runtimeOn(dying.store, storyApp(callsA), clockA);
        const started = a.operations.startRun({ query: QUERY }, ann);
        started.catch(() => undefined);
        await dying.stopped;
        const { items } = await store.listInterrupted({ limit: 200 }, clockA.now() + 60_000);
        expect(items).toHaveLength(1);
        const invocationId = items[0]?.run?.invocationId ?? '';

        const clockB = new ManualClock(clockA.now() + LEASE_SECONDS * 1000 + 1_000);
        const callsB = new Map<string, number>();
        const b = runtimeOn(store, storyApp(callsB), clockB);
        const pause = await b.operations.recoverRun({ invocationId }, ops);
        expect(pause.status, `stopped after checkpoint ${k}`).toBe('pending_approval');
        expect(sum(callsA, callsB), `stopped after checkpoint ${k}`).toEqual(callsBeforeApproval);
        expect((await b.operations.getSession(pause.sessionId, ops)).state).toEqual(baseState);
        const done = await b.operations.resumeRun(
          {
            sessionId: pause.sessionId,
            approved: true,
          },
          as('ed', 'admin'),
        );
        expect(done.status).toBe('completed');
        expect(done.status === 'completed' && done.result).toMatch(/^Published as STORY-/);
        const { entries } = await b.operations.readAudit({ sessionId: pause.sessionId }, ops);
        expect(entries.map((e) => e.action)).toEqual([
          'started',
          'recovered',
          'requested',
          'decided',
          'resumed',
          'executed',
          'completed',
        ]);
      }
      expect(baseDone.status).toBe('completed');
    });
  },
);
