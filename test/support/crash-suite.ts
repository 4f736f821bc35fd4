import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../src/store/redis/redis-scratch.test-support.js';
import { type JsonResponse, signedInAs, TESTER_ROLES } from './json-client.js';
import { runToEnd } from './run-to-end.js';
import { type ServedStore, type ServedStoreKind, startServedStore } from './served-store.js';
import { ServerProcess } from './server-process.js';

// Payments approved in bursts while the server (or its database) is killed with SIGKILL at a
// random moment, weighted toward the first milliseconds after the decisions are sent,
// then recovered by a new server, through the endpoint or `--recover auto`. Every
// approved payment must have happened exactly once (counted outside Holdpoint), and
// the run's history, audit and ledger must agree; no run may be lost or stay stuck.
const APP = fileURLToPath(new URL('../fixtures/apps/counted-payments.ts', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/holdpoint.js', import.meta.url));
const STORY_APP = fileURLToPath(new URL('../fixtures/apps/slow-story-flow.ts', import.meta.url));
const STORY_RUNS = Number(process.env.CRASH_STORY_RUNS ?? 20);
/** The LLM calls of one story flow up to its approval, per agent, when nothing stops it. */
const STORY_CALLS: Record<string, number> = {
  story_generator: 1,
  critic: 2,
  reviser: 2,
  grammar_check: 1,
  tone_check: 1,
  publisher: 1,
};
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 4);
const PER_ROUND = Number(process.env.CRASH_PAYMENTS_PER_ROUND ?? 25);
const LEASE = '3';

/**
 * The crash scenarios with real `holdpoint serve` processes on a store of `kind` (one
 * test file per store calls it): payments approved and the server SIGKILLed, story flows
 * SIGKILLed mid-flow, and, where the database is a server of its own, the database
 * SIGKILLed during the resumes.
 */
export function describeCrashes(kind: ServedStoreKind): void {
  let store: ServedStore;
  let counter: Redis;
  const COUNT_KEY = `crash-effects-${kind}-${process.pid}`;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    store = await startServedStore(kind, 'always');
    // The payment provider's books: the shared Redis, never the store killed below.
    counter = new Redis(TEST_REDIS_URL);
    counter.on('error', () => undefined);
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.kill('SIGKILL')));
  });
  afterAll(async () => {
    await counter?.del(`${COUNT_KEY}:payments`, `${COUNT_KEY}:attempts`, `${COUNT_KEY}:llm`);
    counter?.disconnect();
    await store?.stop();
  });

  async function server(...args: string[]): Promise<ServerProcess> {
    const started = await ServerProcess.start(
      [
        ...store.args,
        '--app',
        APP,
        '--app',
        STORY_APP,
        '--run-lease',
        LEASE,
        '--sweep-interval',
        '1',
        ...args,
      ],
      { CRASH_EFFECTS_REDIS_URL: TEST_REDIS_URL, CRASH_EFFECTS_KEY: COUNT_KEY },
    );
    servers.push(started);
    return started;
  }

  interface Payment {
    sessionId: string;
    invocationId: string;
    approvalId: string;
    /** The idempotency key of the payment's tool call: the counter's field. */
    key: string;
  }

  function effectKey(sessionId: string, callId: string): string {
    return `hp_${createHash('sha256').update(`${sessionId}\n${callId}`).digest('hex').slice(0, 40)}`;
  }

  async function pausePayments(
    api: ServerProcess,
    count: number,
    round: number,
  ): Promise<Payment[]> {
    return Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const { status, body } = await api.client.post('/api/agent/start', {
          query: `pay ${round * 1000 + i + 1}`,
          user_id: 'ann',
        });
        expect(status, JSON.stringify(body)).toBe(200);
        expect(body.status).toBe('pending_approval');
        const [approval] = body.approvals;
        return {
          sessionId: body.session_id,
          invocationId: body.invocation_id,
          approvalId: approval.approval_id,
          key: effectKey(body.session_id, approval.tool_call_id),
        };
      }),
    );
  }

  /** Sends every approval at once; they are answered (or not) while the kill happens. */
  function approveAll(api: ServerProcess, payments: Payment[]): Promise<unknown> {
    return Promise.allSettled(
      payments.map((p) =>
        fetch(`${api.url}/api/approvals/${p.approvalId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...signedInAs('bob', TESTER_ROLES) },
          body: JSON.stringify({ approved: true, user_id: 'bob' }),
        }).then((r) => r.text()),
      ),
    );
  }

  /** Approves `payment` under an Idempotency-Key of its own; resolves the answer. */
  function approveWithKey(api: ServerProcess, payment: Payment): Promise<JsonResponse> {
    return api.client.post(
      `/api/approvals/${payment.approvalId}`,
      { approved: true, user_id: 'bob' },
      { 'idempotency-key': `approve-${payment.approvalId}` },
    );
  }

  /** Sends every approval at once, each under its own key; resolves every answer. */
  function approveWithKeys(api: ServerProcess, payments: Payment[]) {
    return Promise.all(payments.map((payment) => approveWithKey(api, payment)));
  }

  let resumedByCli = false;

  /** `holdpoint resume <invocation-id>` on the test's store; resolves what it printed. */
  async function resumeWithCli(invocationId: string): Promise<string> {
    const { code, output } = await runToEnd(
      process.execPath,
      [BIN, 'resume', invocationId, ...store.args, '--app', APP],
      { env: { CRASH_EFFECTS_REDIS_URL: TEST_REDIS_URL, CRASH_EFFECTS_KEY: COUNT_KEY } },
    );
    expect(code, output).toBe(0);
    return output;
  }

  /** A delay in ms from 0 to `max`, most of them in the first few. */
  function weightedDelay(max: number): number {
    return Math.floor(max * Math.random() ** 3);
  }

  /**
   * Drives each payment to its end through `api`: approves what waits for a person
   * (a decision lost in the crash, or a call asked about again), resumes interrupted
   * runs when `resumeByEndpoint`, and waits for the rest. Returns once all completed.
   */
  async function settle(api: ServerProcess, payments: Payment[], resumeByEndpoint: boolean) {
    const deadline = Date.now() + Number(process.env.CRASH_SETTLE_MS ?? 120_000);
    const open = new Set(payments);
    while (open.size > 0) {
      if (Date.now() > deadline) {
        const left = await Promise.all(
          [...open].map(async (p) => (await api.client.get(`/api/sessions/${p.sessionId}`)).body),
        );
        throw new Error(
          `runs did not end: ${JSON.stringify(left, null, 1)}\nserver:\n${api.logs.join('').slice(-4000)}`,
        );
      }
      for (const payment of [...open]) {
        const { body: session } = await api.client.get(`/api/sessions/${payment.sessionId}`);
        const run = session.run;
        if (session.status === 'idle') {
          expect(run.status, JSON.stringify(session)).toBe('completed');
          open.delete(payment);
        } else if (session.status === 'paused') {
          for (const approval of session.pending_approvals) {
            await api.client.post(`/api/approvals/${approval.approval_id}`, {
              approved: true,
              user_id: 'bob',
            });
          }
        } else if (run.status === 'interrupted' && resumeByEndpoint) {
          if (!resumedByCli) {
            // One run per test goes through the command line, as an operator would.
            resumedByCli = true;
            const printed = await resumeWithCli(payment.invocationId);
            expect(printed).toMatch(
              new RegExp(`Run ${payment.invocationId} .*(completed|waiting for approval)`),
            );
            continue;
          }
          const resumed = await api.client.post(`/api/runs/${payment.invocationId}/resume`, {
            user_id: 'ops',
          });
          expect([200, 409], JSON.stringify(resumed.body)).toContain(resumed.status);
        }
      }
      await sleep(200);
    }
  }

  /** How many payments the provider was asked for more than once (same idempotency key). */
  async function retried(): Promise<string> {
    const attempts = Object.values(await counter.hgetall(`${COUNT_KEY}:attempts`));
    return `${attempts.filter((n) => Number(n) > 1).length} of ${attempts.length} payments retried under their key`;
  }

  /** What the crash left, per payment, as first seen by the recovering server. */
  async function census(api: ServerProcess, payments: Payment[]): Promise<Record<string, number>> {
    const seen: Record<string, number> = {};
    for (const payment of payments) {
      const { body } = await api.client.get(`/api/sessions/${payment.sessionId}`);
      const what =
        body.status === 'paused'
          ? body.pending_approvals.some((a: { may_have_run?: boolean }) => a.may_have_run)
            ? 'asked again'
            : 'undecided'
          : (body.run?.status ?? body.status);
      seen[what] = (seen[what] ?? 0) + 1;
    }
    return seen;
  }

  /** Each payment happened once, and the run's record says so. */
  async function expectPaidOnce(api: ServerProcess, payments: Payment[]): Promise<void> {
    const paid = await counter.hgetall(`${COUNT_KEY}:payments`);
    for (const payment of payments) {
      expect(paid[payment.key], payment.sessionId).toBeDefined();
      const { body: run } = await api.client.get(`/api/runs/${payment.invocationId}`);
      expect(run.status).toBe('completed');
      expect(run.result).toContain(`TXN-${payment.key.slice(3, 13)}`);
      expect(run.result).toContain('"status":"paid"');
      const { body: audit } = await api.client.get(
        `/api/audit?session_id=${payment.sessionId}&limit=200`,
      );
      const actions: string[] = audit.entries.map((e: { action: string }) => e.action);
      expect(
        actions.filter((a) => a === 'executed'),
        actions.join(),
      ).toHaveLength(1);
      expect(
        actions.filter((a) => a === 'completed'),
        actions.join(),
      ).toHaveLength(1);
    }
    const { body: interrupted } = await api.client.get('/api/runs?status=interrupted');
    expect(interrupted.runs).toEqual([]);
  }

  describe(`crash recovery with real processes on ${kind}`, () => {
    it('pays every approved payment exactly once when the server is killed right after the decisions', async () => {
      const all: Payment[] = [];
      const left: Record<string, number>[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const first = await server();
        const payments = await pausePayments(first, PER_ROUND, round);
        const decided = first.waitForOutput('decisions recorded');
        const answered = approveAll(first, payments);
        await decided;
        await sleep(weightedDelay(30));
        await first.kill('SIGKILL');
        await answered;
        // Half the rounds recover through the endpoint, half by `--recover auto`.
        const byEndpoint = round % 2 === 0;
        const next = await server('--recover', byEndpoint ? 'manual' : 'auto');
        left.push(await census(next, payments));
        await settle(next, payments, byEndpoint);
        await expectPaidOnce(next, payments);
        await next.kill('SIGKILL');
        all.push(...payments);
      }
      expect(Object.keys(await counter.hgetall(`${COUNT_KEY}:payments`))).toHaveLength(all.length);
      process.stdout.write(
        `server kills left, per round: ${JSON.stringify(left)}; ${await retried()}\n`,
      );
    });

    it('goes on with every story flow at the step it stopped at when the server is killed mid-flow', async () => {
      const first = await server();
      const query = (i: number) => `Write a story about run-${i}`;
      const started = Array.from({ length: STORY_RUNS }, (_, i) =>
        first.client
          .post('/api/agent/start', { app: 'slow-story-flow', query: query(i), user_id: 'ann' })
          .catch(() => undefined),
      );
      // Killed once the flows are under way (half of them made an LLM call), at a random
      // point of their work.
      await expect
        .poll(async () => Object.keys(await counter.hgetall(`${COUNT_KEY}:llm`)).length, {
          timeout: 60_000,
          interval: 20,
        })
        .toBeGreaterThanOrEqual(STORY_RUNS / 2);
      await sleep(Math.floor(Math.random() * 100));
      await first.kill('SIGKILL');
      const answered = (await Promise.all(started)).filter((r) => r?.status === 200);

      const next = await server();
      await sleep(Number(LEASE) * 1000 + 500);
      const { body: listed } = await next.client.get('/api/runs?status=interrupted&limit=200');
      const stopped: { invocation_id: string; session_id: string; query: string }[] = listed.runs;
      expect(stopped.length).toBeGreaterThan(0);
      const resumed = await Promise.all(
        stopped.map((run) =>
          next.client.post(`/api/runs/${run.invocation_id}/resume`, { user_id: 'ops' }),
        ),
      );
      const waiting = [...answered.map((r) => r?.body), ...resumed.map((r) => r.body)];
      for (const outcome of waiting) {
        expect(outcome.status, JSON.stringify(outcome)).toBe('pending_approval');
        expect(outcome.approvals[0].tool_name).toBe('publish_story');
      }
      const llm = await counter.hgetall(`${COUNT_KEY}:llm`);
      for (const run of stopped) {
        // A step stopped in the middle of its LLM call runs again; nothing before it does.
        let extra = 0;
        for (const [agent, calls] of Object.entries(STORY_CALLS)) {
          const made = Number(llm[`${run.query}:${agent}`] ?? 0);
          expect(made, `${run.query}: ${agent}`).toBeGreaterThanOrEqual(calls);
          extra += made - calls;
        }
        expect(extra, run.query).toBeLessThanOrEqual(1);
      }
      const published = await Promise.all(
        waiting.map((outcome) =>
          next.client.post(`/api/approvals/${outcome.approvals[0].approval_id}`, {
            approved: true,
            user_id: 'ed',
          }),
        ),
      );
      for (const { body } of published) {
        expect(body.status).toBe('completed');
        expect(body.result).toMatch(/^Published as STORY-/);
        const { body: audit } = await next.client.get(`/api/audit?session_id=${body.session_id}`);
        const actions: string[] = audit.entries.map((e: { action: string }) => e.action);
        expect(actions.filter((a) => a === 'executed')).toHaveLength(1);
        expect(actions.filter((a) => a === 'completed')).toHaveLength(1);
      }
      process.stdout.write(
        `story flows: ${stopped.length} interrupted and resumed, ${answered.length} had paused\n`,
      );
    });

    // SQLite is inside the server process: the server kills above are its crashes.
    if (kind === 'sqlite') return;

    it('pays every approved payment exactly once when the database is killed during the resumes, and says so truthfully', async () => {
      const api = await server('--recover', 'auto');
      const payments = await pausePayments(api, PER_ROUND, ROUNDS + 1);
      const decided = api.waitForOutput('decisions recorded');
      const answered = approveWithKeys(api, payments);
      await decided;
      await sleep(weightedDelay(6));
      await store.down('SIGKILL');
      await sleep(300);
      await store.up();
      const answers = await answered;
      const codes: Record<string, number> = {};
      for (const [i, { status, body }] of answers.entries()) {
        const what = status === 200 ? body.status : body.error?.code;
        codes[what] = (codes[what] ?? 0) + 1;
        // A decision is answered with its outcome, or OUTCOME_UNKNOWN when the store went
        // away after it was sent; STORE_UNAVAILABLE only when nothing of it was stored.
        expect(
          ['completed', 'OUTCOME_UNKNOWN', 'STORE_UNAVAILABLE'],
          JSON.stringify(body),
        ).toContain(what);
        if (what === 'STORE_UNAVAILABLE') {
          const { body: session } = await api.client.get(`/api/sessions/${payments[i]?.sessionId}`);
          expect(
            session.pending_approvals.map((a: { approval_id: string }) => a.approval_id),
          ).toContain(payments[i]?.approvalId);
        }
      }
      const left = await census(api, payments);
      process.stdout.write(
        `a ${kind} kill answered ${JSON.stringify(codes)} and left ${JSON.stringify(left)}\n`,
      );
      // The same request again (same Idempotency-Key) is answered with the run's state:
      // completed once the run is (recovered by `--recover auto` where it was interrupted).
      let askedAgain = 0;
      await Promise.all(
        payments.map(async (payment) => {
          const deadline = Date.now() + Number(process.env.CRASH_SETTLE_MS ?? 120_000);
          for (;;) {
            const { status, body } = await approveWithKey(api, payment);
            if (status === 200 && body.status === 'pending_approval') {
              // The run stopped inside the approved call and the ledger cannot say whether
              // it ran: a person is asked again. The retry says so (while the run waits)
              // without answering the new question; the person's new decision does.
              expect(body, JSON.stringify(body)).toMatchObject({
                invocation_id: payment.invocationId,
                approvals: [{ approval_id: payment.approvalId, may_have_run: true }],
              });
              askedAgain += 1;
              const again = await api.client.post(`/api/approvals/${payment.approvalId}`, {
                approved: true,
                user_id: 'bob',
              });
              expect(again.body, JSON.stringify(again.body)).toMatchObject({
                status: 'completed',
                invocation_id: payment.invocationId,
              });
              return;
            }
            if (status === 200) {
              expect(body).toMatchObject({
                status: 'completed',
                invocation_id: payment.invocationId,
              });
              return;
            }
            expect(body.error?.code, JSON.stringify(body)).toBe('OUTCOME_UNKNOWN');
            expect(Date.now(), JSON.stringify(body)).toBeLessThan(deadline);
            await sleep(200);
          }
        }),
      );
      await expectPaidOnce(api, payments);
      process.stdout.write(`${await retried()}; ${askedAgain} asked again\n`);
    });
  });
}
