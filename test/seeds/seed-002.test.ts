import { FunctionTool, LlmAgent } from '@google/adk';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentApp } from '../../src/agents/agent-app.js';
import { RulesModel } from '../../src/agents/rules-model.js';
import { codeOf } from '../../src/core/errors.test-support.js';
import { ManualClock } from '../../src/core/manual-clock.test-support.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import { RedisScratch, TEST_REDIS_URL } from '../../src/store/redis/redis-scratch.test-support.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import type { HoldpointStore } from '../../src/store/store.js';
import { ABC_DONE, ABC_TOOLS, abcRule } from '../support/abc-rules.js';
import { HeldCalls } from '../support/held-tool-app.js';
import { ann, ops } from '../support/principals.js';
import { LEASE_SECONDS, runtimeOn } from '../support/runtime-on.js';

// Seed 002: "If an agent ran tools A and B and then failed during C, A's and B's results
// are restored and only C runs again." One LlmAgent step whose model calls A, B and C one
// after another; the instance running it (A) dies inside C; another instance (B) resumes
// the run by its invocation id. What ran is counted outside Holdpoint.

const scratch = new RedisScratch();
const opened: RedisStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(() => scratch.cleanup());

/** Two handles on one store: two server instances. */
const stores: Record<string, () => [HoldpointStore, HoldpointStore]> = {
  memory: () => {
    const store = new MemoryStore({ sessionTtlSeconds: 600 });
    return [store, store];
  },
  redis: () => {
    const make = () => {
      const store = new RedisStore({
        url: TEST_REDIS_URL,
        keyPrefix: scratch.prefix,
        sessionTtlSeconds: 600,
      });
      opened.push(store);
      return store;
    };
    return [make(), make()];
  },
};

/** What happened outside Holdpoint, across both instances. */
class Outside {
  /** Tool runs that began, by tool. */
  readonly entered: Record<string, number> = {};
  /** Tool runs that had their effect, by tool. */
  readonly effects: Record<string, number> = {};
  /** Times the model was asked. */
  modelCalls = 0;
}

/** Seed 002's app on one instance: tool C waits in `heldC` before its effect. */
function abcApp(outside: Outside, heldC: HeldCalls): AgentApp {
  const tools = ABC_TOOLS.map(
    (name) =>
      new FunctionTool({
        name,
        description: `Tool ${name.at(-1)?.toUpperCase()}.`,
        parameters: z.object({}),
        execute: async (_args, ctx) => {
          outside.entered[name] = (outside.entered[name] ?? 0) + 1;
          if (name === 'tool_c') await heldC.hold(ctx?.invocationContext.session.id ?? '', name);
          outside.effects[name] = (outside.effects[name] ?? 0) + 1;
          return { done: name };
        },
      }),
  );
  const model = new RulesModel('abc', (request) => {
    outside.modelCalls += 1;
    return abcRule(request);
  });
  return {
    name: 'abc',
    label: 'abc',
    description: 'Seed 002: tools A, B and C one after another.',
    examples: [],
    rootAgent: new LlmAgent({ name: 'abc', model, instruction: 'Run A, B, C.', tools }),
    hints: {},
    approvalPolicies: {},
  };
}

describe.each(Object.keys(stores))('seed 002 in process (%s store)', (kind) => {
  it('restores A and B after a crash during C, runs only C again, and asks the model nothing twice', async () => {
    const [storeA, storeB] = (stores[kind] as () => [HoldpointStore, HoldpointStore])();
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    const outside = new Outside();
    const heldInA = new HeldCalls();
    const a = runtimeOn(storeA, abcApp(outside, heldInA), clockA);
    const lateA = codeOf(a.start({ query: 'Run A, B and C' }, ann));
    // A is inside C: it never renews its lease again (its clock stands still) — it died.
    const inC = await heldInA.next();
    expect(outside).toMatchObject({ entered: { tool_a: 1, tool_b: 1, tool_c: 1 }, modelCalls: 3 });

    const passing = new HeldCalls();
    passing.passThrough = true;
    const b = runtimeOn(storeB, abcApp(outside, passing), clockB);
    clockB.advance(LEASE_SECONDS * 1000 + 1_000);
    const { run } = await b.getSession(inC.sessionId, ops);
    const invocationId = run?.invocationId ?? '';
    expect(await b.getRun(invocationId, ops)).toMatchObject({ status: 'interrupted' });
    expect(await b.recover({ invocationId }, ops)).toMatchObject({
      status: 'completed',
      result: ABC_DONE,
    });

    // A and B ran once; C ran again; the model was asked once more, for what came after C.
    expect(outside.effects).toEqual({ tool_a: 1, tool_b: 1, tool_c: 1 });
    expect(outside.entered).toEqual({ tool_a: 1, tool_b: 1, tool_c: 2 });
    expect(outside.modelCalls).toBe(4);
    const history = await b.history(inC.sessionId, ops);
    const events = history.turns.flatMap((turn) => turn.events);
    const calls = events.flatMap((e) => (e.type === 'tool-call' ? [e.toolName] : []));
    const results = events.flatMap((e) => (e.type === 'tool-result' ? [e.output] : []));
    expect(calls).toEqual([...ABC_TOOLS]);
    expect(results).toEqual(ABC_TOOLS.map((name) => ({ done: name })));
    const { entries } = await b.audit({ sessionId: inC.sessionId }, ops);
    expect(entries.map((e) => e.action)).toEqual(['started', 'recovered', 'completed']);

    // The process thought dead wakes up inside C: its end is refused, nothing of it counts.
    inC.release();
    expect(await lateA).toBe('LEASE_LOST');
    expect((await b.history(inC.sessionId, ops)).turns.flatMap((t) => t.events)).toEqual(events);
  });
});
