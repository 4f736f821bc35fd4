import { createEvent, createSession } from '@google/adk';
import { describe, expect, it } from 'vitest';
import type { EffectLedger } from '../../core/effect-ledger.js';
import { SegmentSessions } from './segment-sessions.js';

const noLedger: EffectLedger = {
  once: (_key, effect) => effect(),
  markStarted: async () => undefined,
  inspect: async () => ({ started: false, state: 'none' }),
  takeOver: async () => undefined,
};

function loaded() {
  return createSession({
    id: 's1',
    appName: 'app',
    userId: 'ann',
    state: { 'app:theme': 'dark', step: 1 },
    events: [],
    lastUpdateTime: 0,
  });
}

describe('SegmentSessions', () => {
  it("serves the segment's own session and logs what is appended to it, final state included", async () => {
    const session = loaded();
    const sessions = new SegmentSessions(session, noLedger, 'i');
    const key = { appName: 'app', userId: 'ann', sessionId: 's1' };
    expect(await sessions.getSession(key)).toBe(session);
    const first = createEvent({
      invocationId: 'i',
      author: 'agent',
      actions: { stateDelta: { step: 2, 'app:theme': 'light', 'temp:scratch': 1 } },
    });
    await sessions.appendEvent({ session, event: first });
    await sessions.appendEvent({
      session,
      event: createEvent({
        invocationId: 'i',
        author: 'agent',
        actions: { stateDelta: { step: 3 } },
      }),
    });
    // An event appended again replaces itself (ADK would apply its state delta again).
    const again = { ...first, branch: 'again', actions: { ...first.actions, stateDelta: {} } };
    await sessions.appendEvent({ session, event: again });
    const { events, state } = sessions.takeAppended();
    expect(events.map((e) => e.branch)).toEqual(['again', undefined]);
    expect(state).toEqual({ step: 3, 'app:theme': 'light' });
    expect(session.state).toMatchObject({ step: 3, 'app:theme': 'light' });
    await sessions.appendEvent({
      session,
      event: createEvent({ invocationId: 'i', author: 'a', partial: true }),
    });
    // A partial event is not kept, and what was taken is not taken again.
    expect(sessions.takeAppended().events).toEqual([]);
  });

  it('stores a checkpoint after each event that checkpoints an agent, before ADK goes on', async () => {
    const session = loaded();
    const taken: string[][] = [];
    const sessions: SegmentSessions = new SegmentSessions(session, noLedger, 'i', async () => {
      taken.push(sessions.takeAppended().events.map((e) => e.author ?? ''));
    });
    await sessions.appendEvent({ session, event: createEvent({ invocationId: 'i', author: 'a' }) });
    expect(taken).toEqual([]);
    await sessions.appendEvent({
      session,
      event: createEvent({
        invocationId: 'i',
        author: 'flow',
        actions: { agentState: { step: 2 } },
      }),
    });
    expect(taken).toEqual([['a', 'flow']]);
    await sessions.appendEvent({ session, event: createEvent({ invocationId: 'i', author: 'b' }) });
    await sessions.appendEvent({
      session,
      event: createEvent({ invocationId: 'i', author: 'flow', actions: { endOfAgent: true } }),
    });
    expect(taken).toEqual([
      ['a', 'flow'],
      ['b', 'flow'],
    ]);
    expect(sessions.takeAppended().events).toEqual([]);
  });

  it("keeps sessions ADK makes for itself (an AgentTool's) apart, in a scratch service", async () => {
    const session = loaded();
    const sessions = new SegmentSessions(session, noLedger, 'i');
    // AgentTool asks for its agent's name as the app, with the same session id.
    const inner = await sessions.getOrCreateSession({
      appName: 'helper',
      userId: 'ann',
      sessionId: 's1',
    });
    expect(inner).not.toBe(session);
    await sessions.appendEvent({
      session: inner,
      event: createEvent({ invocationId: 'j', author: 'helper' }),
    });
    expect(sessions.takeAppended().events).toEqual([]);
    expect(session.events).toEqual([]);
  });

  it('stamps the run’s invocation id on every event it stores, keeping ADK’s beside it', async () => {
    const session = loaded();
    const sessions = new SegmentSessions(session, noLedger, 'inv-run');
    await sessions.appendEvent({
      session,
      event: createEvent({ invocationId: 'e-adk-1', author: 'agent' }),
    });
    await sessions.appendEvent({
      session,
      event: createEvent({ invocationId: 'inv-run', author: 'user' }),
    });
    const [first, second] = sessions.takeAppended().events;
    expect(first).toMatchObject({
      invocationId: 'inv-run',
      customMetadata: { adkInvocationId: 'e-adk-1' },
    });
    expect(second?.invocationId).toBe('inv-run');
    expect(second?.customMetadata).toBeUndefined();
    expect(session.events.map((e) => e.invocationId)).toEqual(['inv-run', 'inv-run']);
  });

  it("keeps an AgentTool call's run in a session of its own, stored in the log marked with the call", async () => {
    const session = loaded();
    const sessions = new SegmentSessions(session, noLedger, 'inv-run');
    const inner = sessions.agentToolSession('call-1', 'helper');
    expect(sessions.agentToolSession('call-1')).toBe(inner);
    expect(inner).toMatchObject({ id: 's1', appName: 'helper', userId: 'ann', events: [] });
    expect(inner.state).toEqual(session.state);
    const service = sessions.agentToolService(inner);
    expect(await service.getSession({ appName: 'helper', userId: 'ann', sessionId: 's1' })).toBe(
      inner,
    );
    await service.appendEvent({
      session: inner,
      event: createEvent({
        invocationId: 'e-adk',
        author: 'helper',
        content: { role: 'model', parts: [{ functionCall: { id: 'c-2', name: 'pay', args: {} } }] },
        actions: { stateDelta: { found: 'x', 'temp:scratch': 1 } },
      }),
    });
    // Its state is set on the session too (but `temp:`), as ADK's AgentTool does.
    expect(session.state).toMatchObject({ found: 'x' });
    expect(session.state).not.toHaveProperty('temp:scratch');
    expect(session.events).toEqual([]);
    expect(inner.events).toHaveLength(1);
    expect(sessions.agentToolCallMaking('c-2')).toBe('call-1');
    expect(sessions.agentToolCallMaking('c-other')).toBeUndefined();
    const { events, state } = sessions.takeAppended();
    expect(events).toEqual([
      expect.objectContaining({
        invocationId: 'inv-run',
        customMetadata: { adkInvocationId: 'e-adk', holdpointAgentToolCall: 'call-1' },
      }),
    ]);
    expect(state).toEqual({ found: 'x' });

    // Loaded again, the run is kept apart from the session's own events.
    const reloaded = loaded();
    reloaded.events = [createEvent({ invocationId: 'inv-run', author: 'user' }), ...events];
    const next = new SegmentSessions(reloaded, noLedger, 'inv-run');
    expect(reloaded.events).toHaveLength(1);
    expect(next.storedAgentToolEvents()).toHaveLength(1);
    expect(next.agentToolCallMaking('c-2')).toBe('call-1');
    expect(next.agentToolSession('call-1', 'helper').events).toHaveLength(1);
  });
});
