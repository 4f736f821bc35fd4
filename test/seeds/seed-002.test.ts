import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { codeOf } from '../../src/core/errors.test-support.js';
import { ManualClock } from '../../src/core/manual-clock.test-support.js';
import { abcApp, Outside } from '../support/abc-app.js';
import { ABC_DONE, ABC_TOOLS } from '../support/abc-rules.js';
import { HeldCalls } from '../support/held-tool-app.js';
import { ann, ops } from '../support/principals.js';
import { TestRedis } from '../support/redis-server.js';
import { LEASE_SECONDS, runtimeOn } from '../support/runtime-on.js';
import { ServerProcess } from '../support/server-process.js';
import { STORE_KINDS, TwoInstances } from '../support/two-instances.js';

// Seed 002: "If an agent ran tools A and B and then failed during C, A's and B's results
// are restored and only C runs again." One LlmAgent step whose model calls A, B and C one
// after another; the instance running it (A) dies inside C; another instance (B) resumes
// the run by its invocation id. What ran is counted outside Holdpoint.

const instances = new TwoInstances();
afterEach(() => instances.close());
afterAll(() => instances.cleanup());

describe.each(STORE_KINDS)('seed 002 in process (%s store)', (kind) => {
  it('restores A and B after a crash during C, runs only C again, and asks the model nothing twice', async () => {
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    const outside = new Outside();
    const heldInA = new HeldCalls();
    const a = runtimeOn(storeA, abcApp(outside, { heldC: heldInA }), clockA);
    const lateA = codeOf(a.operations.startRun({ query: 'Run A, B and C' }, ann));
    // A is inside C: it never renews its lease again (its clock stands still) — it died.
    const inC = await heldInA.next();
    expect(outside).toMatchObject({
      entered: { tool_a: 1, tool_b: 1, tool_c: 1 },
      modelCalls: { abc: 3 },
    });

    const passing = new HeldCalls();
    passing.passThrough = true;
    const b = runtimeOn(storeB, abcApp(outside, { heldC: passing }), clockB);
    clockB.advance(LEASE_SECONDS * 1000 + 1_000);
    const { run } = await b.operations.getSession(inC.sessionId, ops);
    const invocationId = run?.invocationId ?? '';
    expect(await b.operations.getRun(invocationId, ops)).toMatchObject({ status: 'interrupted' });
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
      result: ABC_DONE,
    });

    // A and B ran once; C ran again; the model was asked once more, for what came after C.
    expect(outside.effects).toEqual({ tool_a: 1, tool_b: 1, tool_c: 1 });
    expect(outside.entered).toEqual({ tool_a: 1, tool_b: 1, tool_c: 2 });
    expect(outside.modelCalls).toEqual({ abc: 4 });
    const history = await b.operations.getSessionMessages(inC.sessionId, ops);
    const events = history.turns.flatMap((turn) => turn.events);
    const calls = events.flatMap((e) => (e.type === 'tool-call' ? [e.toolName] : []));
    const results = events.flatMap((e) => (e.type === 'tool-result' ? [e.output] : []));
    expect(calls).toEqual([...ABC_TOOLS]);
    expect(results).toEqual(ABC_TOOLS.map((name) => ({ done: name })));
    const { entries } = await b.operations.readAudit({ sessionId: inC.sessionId }, ops);
    expect(entries.map((e) => e.action)).toEqual(['started', 'recovered', 'completed']);

    // The process thought dead wakes up inside C: its end is refused, nothing of it counts.
    inC.release();
    expect(await lateA).toBe('LEASE_LOST');
    expect(
      (await b.operations.getSessionMessages(inC.sessionId, ops)).turns.flatMap((t) => t.events),
    ).toEqual(events);
  });
});

// The same, as a user runs it: `holdpoint serve` processes on Redis, the first killed
// with SIGKILL while tool C runs (its first run never ends); the run is resumed by its
// invocation id through the endpoint, the command and `--recover auto`. Needs
// `npm run build`.
const APP = fileURLToPath(new URL('../fixtures/apps/seed-002-tools.ts', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/holdpoint.js', import.meta.url));
const LEASE = '3';
/** Real processes start slowly on a loaded machine: bounded by this, not timed by it. */
const PROCESS_MS = 300_000;

describe('seed 002 with server processes on Redis, killed inside C', () => {
  let redis: TestRedis;
  let counter: Redis;
  const servers: ServerProcess[] = [];
  let round = 0;

  beforeAll(async () => {
    redis = await TestRedis.start('always');
    counter = new Redis(redis.url);
  }, PROCESS_MS);
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.kill('SIGKILL')));
  });
  afterAll(async () => {
    counter?.disconnect();
    await redis?.stop();
  });

  /** Where this round's app counts what ran (a key of its own per round). */
  function countsKey(): string {
    round += 1;
    return `seed-002-${process.pid}-${round}`;
  }

  function env(key: string): Record<string, string> {
    return { CRASH_EFFECTS_REDIS_URL: redis.url, CRASH_EFFECTS_KEY: key };
  }

  function storeArgs(): string[] {
    return ['--store', 'redis', '--redis-url', redis.url, '--app', APP, '--run-lease', LEASE];
  }

  async function server(key: string, ...args: string[]): Promise<ServerProcess> {
    const started = await ServerProcess.start([...storeArgs(), ...args], env(key));
    servers.push(started);
    return started;
  }

  function counts(key: string): Promise<Record<string, string>> {
    return counter.hgetall(`${key}:abc`);
  }

  /**
   * Starts seed 002's run on a server and kills the server with SIGKILL while tool C
   * runs; returns the run's session id.
   */
  async function killedInsideC(key: string): Promise<string> {
    const first = await server(key);
    const start = first.client
      .post('/api/agent/start', { app: 'seed-002', query: 'Run A, B and C', user_id: 'ann' })
      .catch((error: unknown) => error);
    await expect
      .poll(async () => (await counts(key))['entered:tool_c'], { timeout: 60_000, interval: 20 })
      .toBe('1');
    await first.kill('SIGKILL');
    await start;
    expect(await counts(key)).toMatchObject({ 'done:tool_b': '1', model: '3' });
    expect(await counts(key)).not.toHaveProperty('done:tool_c');
    return (await counts(key)).session ?? '';
  }

  /** The run's invocation id, once its lease lapsed and it is interrupted. */
  async function interrupted(api: ServerProcess, sessionId: string): Promise<string> {
    const { body: session } = await api.client.get(`/api/sessions/${sessionId}`);
    const invocationId: string = session.run.invocation_id;
    await expect
      .poll(async () => (await api.client.get(`/api/runs/${invocationId}`)).body.status, {
        timeout: 30_000,
        interval: 100,
      })
      .toBe('interrupted');
    return invocationId;
  }

  /** A and B ran once, C again, the model was asked once more; history and audit agree. */
  async function expectOnlyCRanAgain(api: ServerProcess, key: string, sessionId: string) {
    expect(await counts(key)).toMatchObject({
      'entered:tool_a': '1',
      'done:tool_a': '1',
      'entered:tool_b': '1',
      'done:tool_b': '1',
      'entered:tool_c': '2',
      'done:tool_c': '1',
      model: '4',
    });
    const { body } = await api.client.get(`/api/sessions/${sessionId}/messages`);
    expect(body.run).toMatchObject({ status: 'completed', result: ABC_DONE });
    const tools = body.messages
      .flatMap((message: { parts: { type: string }[] }) => message.parts)
      .filter((part: { type: string }) => part.type.startsWith('tool-'));
    expect(tools).toEqual(
      ABC_TOOLS.map((name) =>
        expect.objectContaining({
          type: `tool-${name}`,
          state: 'output-available',
          output: { done: name },
        }),
      ),
    );
    const { body: audit } = await api.client.get(`/api/audit?session_id=${sessionId}`);
    expect(audit.entries.map((e: { action: string }) => e.action)).toEqual([
      'started',
      'recovered',
      'completed',
    ]);
  }

  it(
    'resumes through POST /api/runs/:id/resume',
    async () => {
      const key = countsKey();
      const sessionId = await killedInsideC(key);
      const next = await server(key);
      const invocationId = await interrupted(next, sessionId);
      const resumed = await next.client.post(`/api/runs/${invocationId}/resume`, {});
      expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
      expect(resumed.body).toMatchObject({ status: 'completed', result: ABC_DONE });
      await expectOnlyCRanAgain(next, key, sessionId);
    },
    PROCESS_MS,
  );

  it(
    'resumes through holdpoint resume <invocation-id>',
    async () => {
      const key = countsKey();
      const sessionId = await killedInsideC(key);
      const next = await server(key);
      const invocationId = await interrupted(next, sessionId);
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [BIN, 'resume', invocationId, ...storeArgs()],
        { env: { ...process.env, ...env(key) }, timeout: PROCESS_MS },
      );
      expect(stdout).toContain(
        `Run ${invocationId} (session ${sessionId}) completed.\n${ABC_DONE}`,
      );
      await expectOnlyCRanAgain(next, key, sessionId);
    },
    PROCESS_MS,
  );

  it(
    'resumes by itself with --recover auto',
    async () => {
      const key = countsKey();
      const sessionId = await killedInsideC(key);
      const next = await server(key, '--recover', 'auto', '--sweep-interval', '1');
      await expect
        .poll(async () => (await next.client.get(`/api/sessions/${sessionId}`)).body.run?.status, {
          timeout: 60_000,
          interval: 100,
        })
        .toBe('completed');
      await expectOnlyCRanAgain(next, key, sessionId);
    },
    PROCESS_MS,
  );
});
