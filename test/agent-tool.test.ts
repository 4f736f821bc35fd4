import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  SequentialAgent as AdkSequentialAgent,
  AgentTool,
  FunctionTool,
  LlmAgent,
} from '@google/adk';
import type { UIMessage } from 'ai';
import {
  createHoldpoint,
  defineApp,
  type Holdpoint,
  type HoldpointApp,
  isHoldpointError,
  memoryStore,
  type PendingOutcome,
  postgresStore,
  RulesModel,
  type RunOutcome,
  redisStore,
  type Store,
  sqliteStore,
} from 'holdpoint';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolCall } from '../examples/shared/llm-history.js';
import { loadConfig } from '../src/config/config.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { PostgresScratch } from '../src/store/postgres/postgres-scratch.test-support.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { moves } from './fixtures/apps/agent-tools/agent-tool-parts.js';
import linearTool from './fixtures/apps/agent-tools/linear-tool.js';
import moverTool from './fixtures/apps/agent-tools/mover-tool.js';
import pickerTool from './fixtures/apps/agent-tools/picker-tool.js';
import sequentialTool, { reports } from './fixtures/apps/agent-tools/sequential-tool.js';
import { counts } from './fixtures/apps/linear-payments.js';
import {
  finalMessage,
  invalidChunks,
  messageText,
  postChat,
  type ToolPart,
  toolParts,
  userMessage,
} from './support/ui-stream.js';

// Issue 32, point 1: an approval inside an AgentTool (ADK's standard way to compose
// agents) used to be skipped in silence — no pause, nobody asked, the run completed with
// `root got {"result":""}`. Here the AgentTool's run pauses the whole run, durably; the
// decision, taken on another instance of the same store, resumes it where it stopped,
// and its answer reaches the calling agent as the tool's result.

const redis = new RedisScratch();
const postgres = new PostgresScratch();
const dirs: string[] = [];
/** Instances still open: closed at the end. */
const opened = new Set<Holdpoint>();
afterAll(async () => {
  await Promise.all([...opened].map((h) => h.close()));
  await redis.cleanup();
  await postgres.cleanup();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A store kind: each call opens another instance's handle onto the same data. */
type Instances = () => Store;

const STORES: Record<string, () => Instances> = {
  memory: () => {
    const store = memoryStore();
    return () => store;
  },
  sqlite: () => {
    const dir = mkdtempSync(join(tmpdir(), 'hp-agent-tool-'));
    dirs.push(dir);
    return () => sqliteStore({ dataDir: dir });
  },
  postgres: () => {
    const url = postgres.url;
    return () => postgresStore({ url });
  },
  redis: () => {
    const keyPrefix = `${redis.prefix}${Math.random().toString(36).slice(2)}.`;
    return () => redisStore({ url: TEST_REDIS_URL, keyPrefix });
  },
};

const APPS = [pickerTool, moverTool, sequentialTool, linearTool];

function paused(outcome: RunOutcome): PendingOutcome {
  if (outcome.status !== 'pending_approval') {
    throw new Error(`not paused: ${JSON.stringify(outcome)}`);
  }
  return outcome;
}

describe.each(Object.keys(STORES))('an approval behind an AgentTool, on %s', (kind) => {
  let instances: Instances;
  let current: Holdpoint | undefined;

  /** A new instance on the same store (the previous one closed first: a restart). */
  async function instance(): Promise<Holdpoint> {
    if (kind === 'postgres') await postgres.ready();
    if (current) {
      opened.delete(current);
      await current.close();
    }
    current = createHoldpoint({ apps: APPS, store: instances(), sweepIntervalSeconds: false });
    opened.add(current);
    return current;
  }

  beforeEach(() => {
    instances = STORES[kind]?.() as Instances;
    current = undefined;
  });

  it("seed 004's picker behind an AgentTool pauses at select_item, then at confirm_choice, then answers the root", async () => {
    const select = paused(
      await (await instance()).start({ app: 'picker-tool', userId: 'ann', query: 'pick a fruit' }),
    );
    expect(select.approvals).toEqual([
      expect.objectContaining({
        kind: 'input',
        toolName: 'select_item',
        args: { options: ['Apple', 'Banana', 'Cherry'], prompt: 'Pick a fruit' },
        hint: 'Pick a fruit',
      }),
    ]);

    const confirm = paused(
      await (await instance()).decide({
        approvalId: select.approvals[0]?.approvalId ?? '',
        approved: true,
        payload: { item: 'Apple' },
        decidedBy: 'ann',
      }),
    );
    expect(confirm.invocationId).toBe(select.invocationId);
    expect(confirm.approvals).toEqual([
      expect.objectContaining({ toolName: 'confirm_choice', args: { item: 'Apple' } }),
    ]);

    const again = await instance();
    const done = await again.decide({
      approvalId: confirm.approvals[0]?.approvalId ?? '',
      approved: true,
      payload: { confirmed: true },
      decidedBy: 'ann',
    });
    expect(done).toMatchObject({
      status: 'completed',
      invocationId: select.invocationId,
      result: 'root got {"result":"You picked Apple, and it is confirmed."}',
    });

    // The conversation reads as one turn: the AgentTool's call, its agent's calls and
    // their answers, its result; its request is no message of the user's.
    const { turns } = await again.sessions.history(select.sessionId);
    expect(turns.map((t) => t.text)).toEqual(['pick a fruit']);
    const events = turns[0]?.events ?? [];
    expect(events.filter((e) => e.type === 'tool-call').map((e) => e.toolName)).toEqual([
      'picker',
      'select_item',
      'confirm_choice',
    ]);
    expect(events.filter((e) => e.type === 'text').map((e) => e.text)).toEqual([
      'root got {"result":"You picked Apple, and it is confirmed."}',
    ]);
    expect(events.at(-2)).toMatchObject({
      type: 'tool-result',
      toolName: 'picker',
      output: { result: 'You picked Apple, and it is confirmed.' },
    });
  });

  it('a confirmation tool behind an AgentTool runs once, after an approver allows it, and is audited', async () => {
    const first = await instance();
    const pause = paused(await first.start({ app: 'mover-tool', userId: 'ann', query: 'move 42' }));
    expect(pause.approvals).toEqual([
      expect.objectContaining({
        kind: 'confirmation',
        toolName: 'move_money',
        args: { amount: 42 },
        hint: 'Move 42?',
        approvers: expect.objectContaining({ roles: ['approver'] }),
      }),
    ]);
    const approvalId = pause.approvals[0]?.approvalId ?? '';
    const movesBefore = [...moves.values()].reduce((a, b) => a + b, 0);

    // Who may decide holds inside an AgentTool as anywhere: ann is no approver.
    const second = await instance();
    const refused = await second
      .decide({ approvalId, approved: true, decidedBy: 'ann' })
      .catch((error: unknown) => error);
    expect(isHoldpointError(refused) && refused.code).toBe('FORBIDDEN');

    // Two approvers at once on two handles: one decision stands, one effect.
    const third = createHoldpoint({
      apps: APPS,
      store: instances(),
      sweepIntervalSeconds: false,
    });
    opened.add(third);
    const results = await Promise.allSettled([
      second.decide({
        approvalId,
        approved: true,
        decidedBy: { id: 'maria', roles: ['approver'] },
      }),
      third.decide({ approvalId, approved: true, decidedBy: { id: 'jiro', roles: ['approver'] } }),
    ]);
    const done = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({
      status: 'completed',
      result: 'root got {"result":"mover: {\\"moved\\":42}"}',
    });
    const lost = results.find((r) => r.status === 'rejected');
    expect(isHoldpointError(lost?.status === 'rejected' ? lost.reason : undefined)).toBe(true);
    expect([...moves.values()].reduce((a, b) => a + b, 0)).toBe(movesBefore + 1);

    const audit = await second.audit({ sessionId: pause.sessionId });
    expect(audit.entries.map((e) => e.action)).toEqual(
      expect.arrayContaining(['requested', 'decided', 'resumed', 'executed', 'completed']),
    );
    expect(audit.entries.find((e) => e.action === 'requested')).toMatchObject({
      toolName: 'move_money',
    });
  });

  it('a rejection inside an AgentTool reaches its agent, and nothing moves', async () => {
    const pause = paused(
      await (await instance()).start({ app: 'mover-tool', userId: 'ann', query: 'move 7' }),
    );
    const movesBefore = [...moves.values()].reduce((a, b) => a + b, 0);
    const done = await (await instance()).decide({
      approvalId: pause.approvals[0]?.approvalId ?? '',
      approved: false,
      reason: 'not today',
      decidedBy: { id: 'maria', roles: ['approver'] },
    });
    expect(done.status).toBe('completed');
    expect(done.status === 'completed' && done.result).toMatch(/^root got .*mover: .*error/);
    expect([...moves.values()].reduce((a, b) => a + b, 0)).toBe(movesBefore);
  });

  it("seed 001's inline approvals (waitForApproval) inside an AgentTool pause the run, each once", async () => {
    const payments = [...counts.payments.values()].reduce((a, b) => a + b, 0);
    const first = paused(
      await (await instance()).start({
        app: 'linear-tool',
        userId: 'ann',
        query: 'pay 30 to Jiro',
      }),
    );
    expect(first.approvals).toEqual([
      expect.objectContaining({ toolName: 'transfer', hint: 'Send 30 to Jiro?', awaitIndex: 0 }),
    ]);
    const second = paused(
      await (await instance()).decide({
        approvalId: first.approvals[0]?.approvalId ?? '',
        approved: true,
        decidedBy: 'ann',
      }),
    );
    expect(second.approvals).toEqual([
      expect.objectContaining({ hint: 'Second sign-off: 30 to Jiro?', awaitIndex: 1 }),
    ]);
    const done = await (await instance()).decide({
      approvalId: second.approvals[0]?.approvalId ?? '',
      approved: true,
      decidedBy: 'ann',
    });
    expect(done).toMatchObject({ status: 'completed', invocationId: first.invocationId });
    expect(done.status === 'completed' && done.result).toContain(
      '\\"status\\":\\"sent\\",\\"amount\\":30',
    );
    expect([...counts.payments.values()].reduce((a, b) => a + b, 0)).toBe(payments + 1);
  });

  it('a cancelled pause inside an AgentTool leaves the session free: the next message runs anew', async () => {
    const first = await instance();
    const pause = paused(await first.start({ app: 'mover-tool', userId: 'ann', query: 'move 9' }));
    await first.cancel({ sessionId: pause.sessionId, actor: 'ann', reason: 'changed my mind' });
    const movesBefore = [...moves.values()].reduce((a, b) => a + b, 0);
    const next = paused(
      await (await instance()).start({
        app: 'mover-tool',
        userId: 'ann',
        query: 'move 3',
        sessionId: pause.sessionId,
      }),
    );
    expect(next.invocationId).not.toBe(pause.invocationId);
    expect(next.approvals[0]).toMatchObject({ toolName: 'move_money', args: { amount: 3 } });
    const done = await (await instance()).decide({
      approvalId: next.approvals[0]?.approvalId ?? '',
      approved: true,
      decidedBy: { id: 'maria', roles: ['approver'] },
    });
    expect(done).toMatchObject({
      status: 'completed',
      result: 'root got {"result":"mover: {\\"moved\\":3}"}',
    });
    // The cancelled move never happened; the new one once.
    expect([...moves.values()].reduce((a, b) => a + b, 0)).toBe(movesBefore + 1);
  });

  it('an AgentTool inside a SequentialAgent step stops the workflow until the decision', async () => {
    const asked = reports.asked;
    const pause = paused(
      await (await instance()).start({ app: 'sequential-tool', userId: 'ann', query: 'move 5' }),
    );
    expect(pause.approvals[0]).toMatchObject({ toolName: 'move_money', args: { amount: 5 } });
    // The next step never runs before the decision.
    expect(reports.asked).toBe(asked);

    const done = await (await instance()).decide({
      approvalId: pause.approvals[0]?.approvalId ?? '',
      approved: true,
      decidedBy: 'ann',
    });
    expect(done).toMatchObject({
      status: 'completed',
      invocationId: pause.invocationId,
      result: 'move_step got {"result":"mover: {\\"moved\\":5}"}\n\nReported the move.',
    });
    expect(reports.asked).toBe(asked + 1);
  });
});

describe("seed 004's picker behind an AgentTool over the AI SDK's SSE chat", () => {
  let server: RunningServer;
  afterAll(async () => server?.close());

  /** The assistant message with one tool part answered, as the client would post it. */
  function answered(message: UIMessage, toolCallId: string, output: unknown): UIMessage {
    return {
      ...message,
      parts: message.parts.map((p) =>
        (p as unknown as ToolPart).toolCallId === toolCallId
          ? ({ ...p, state: 'output-available', output } as typeof p)
          : p,
      ),
    };
  }

  it('streams each pause as the inner tool waiting for input, then the root agent answering', async () => {
    const app = fileURLToPath(
      new URL('./fixtures/apps/agent-tools/picker-tool.ts', import.meta.url),
    );
    server = await startServer(
      loadConfig(['--app', app, '--port', '0', '--log-level', 'silent', '--store', 'memory'], {}),
    );
    const url = `http://127.0.0.1:${server.port}/api/chat`;
    const body = { id: 'chat-picker-tool', userId: 'tester' };
    const question = userMessage('pick a fruit');

    const turn = async (messages: UIMessage[], last?: UIMessage) => {
      const sse = await postChat(url, { ...body, messages });
      expect(sse.status).toBe(200);
      expect(sse.done).toBe(true);
      expect(await invalidChunks(sse.chunks)).toEqual([]);
      expect(sse.chunks.filter((c) => c.type === 'finish')).toHaveLength(1);
      return finalMessage(sse.chunks, last);
    };
    const m1 = await turn([question]);
    const select = toolParts(m1).find((p) => p.type === 'tool-select_item');
    expect(select).toMatchObject({ state: 'input-available', input: { prompt: 'Pick a fruit' } });
    expect(toolParts(m1).find((p) => p.type === 'tool-picker')?.state).toBe('input-available');

    const a1 = answered(m1, select?.toolCallId ?? '', { item: 'Banana' });
    const m2 = await turn([question, a1], a1);
    const confirm = toolParts(m2).find((p) => p.type === 'tool-confirm_choice');
    expect(confirm).toMatchObject({ state: 'input-available', input: { item: 'Banana' } });

    const a2 = answered(m2, confirm?.toolCallId ?? '', { confirmed: true });
    const m3 = await turn([question, a2], a2);
    expect(toolParts(m3).find((p) => p.type === 'tool-picker')).toMatchObject({
      state: 'output-available',
      output: { result: 'You picked Banana, and it is confirmed.' },
    });
    expect(messageText(m3)).toBe('root got {"result":"You picked Banana, and it is confirmed."}');
    expect(m3.id).toBe(m1.id);
  });
});

describe('a tool that needs a person where a run cannot pause', () => {
  const confirmed = () =>
    new FunctionTool({
      name: 'wire_funds',
      description: 'Wires funds.',
      parameters: z.object({ amount: z.number() }),
      requireConfirmation: true,
      execute: () => ({ wired: true }),
    });
  const step = (name: string) =>
    new LlmAgent({
      name,
      model: new RulesModel(name, () => toolCall('wire_funds', { amount: 1 })),
      tools: [confirmed()],
    });

  it("is refused when the app is defined: ADK's own SequentialAgent runs past the pause", () => {
    const define = () =>
      defineApp({
        name: 'adk-sequence',
        agent: new AdkSequentialAgent({ name: 'pipeline', subAgents: [step('wire')] }),
      });
    expect(define).toThrow(
      expect.objectContaining({
        code: 'INVALID_APP',
        message: expect.stringContaining(
          `the tool wire_funds waits for a person (requireConfirmation) but runs inside ADK's SequentialAgent "pipeline"`,
        ),
      }),
    );
  });

  it('is refused when the app is loaded, also behind an AgentTool built by an agent function', () => {
    const app: HoldpointApp = defineApp({
      name: 'adk-sequence-tool',
      agent: () =>
        new LlmAgent({
          name: 'root',
          model: new RulesModel('root', () => toolCall('pipeline', { request: 'go' })),
          tools: [
            new AgentTool({
              agent: new AdkSequentialAgent({ name: 'pipeline', subAgents: [step('wire')] }),
            }),
          ],
        }),
    });
    expect(() => createHoldpoint({ apps: [app], sweepIntervalSeconds: false })).toThrow(
      expect.objectContaining({
        code: 'INVALID_APP',
        message: expect.stringContaining('the tool wire_funds waits for a person'),
      }),
    );
  });
});
