import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JsonClient } from './json-client.js';
import { type ServedStore, type ServedStoreKind, startServedStore } from './served-store.js';
import { ServerProcess } from './server-process.js';

/**
 * The durability scenarios with real `holdpoint serve` processes on a store of `kind`
 * (one test file per store calls it): kill -9 and a new process resumes, two instances
 * share the store, 20 racing resumes have one winner, a pause past its TTL answers 410,
 * and, where the database is a server of its own, the database down answers 503 and
 * the paused run resumes once it is back. On SQLite one process serves a data directory
 * at a time (a second is refused: test/sqlite-serve-checks.test.ts), so its processes
 * follow one another instead of running side by side.
 */
export function describeDurability(kind: ServedStoreKind): void {
  let store: ServedStore;
  const oneProcess = kind === 'sqlite';
  /**
   * Two long-lived instances sharing the store; on SQLite, `b` is `a`, which a test
   * starting a process of its own stops first (and `other` starts again).
   */
  let a: ServerProcess;
  let b: ServerProcess;
  const killable: ServerProcess[] = [];

  async function server(...args: string[]): Promise<ServerProcess> {
    return ServerProcess.start([...store.args, '--model', 'rules', ...args]);
  }

  /** An instance of this test's own, killed at its end at the latest. */
  async function ownServer(...args: string[]): Promise<ServerProcess> {
    if (oneProcess) await a.kill();
    const started = await server(...args);
    killable.push(started);
    return started;
  }

  /** `b`: on SQLite the one long-lived process, started again if a test stopped it. */
  async function other(): Promise<ServerProcess> {
    if (oneProcess && (a.child.exitCode !== null || a.child.signalCode !== null)) {
      a = await server();
      b = a;
    }
    return b;
  }

  beforeAll(async () => {
    store = await startServedStore(kind);
    a = await server();
    b = oneProcess ? a : await server();
  });

  afterEach(async () => {
    await Promise.all(killable.splice(0).map((s) => s.kill('SIGKILL')));
    await other();
  });

  afterAll(async () => {
    await Promise.all([a?.kill('SIGKILL'), b?.kill('SIGKILL')]);
    await store?.stop();
  });

  async function pauseTenImages(
    api: JsonClient,
  ): Promise<{ session_id: string; invocation_id: string; pause_id: string }> {
    const start = await api.post('/api/agent/start', {
      query: 'Generate 10 images',
      user_id: 'fabricio',
    });
    expect(start.body.status).toBe('pending_approval');
    return start.body;
  }

  async function actions(api: JsonClient, sessionId: string): Promise<string[]> {
    const audit = await api.get(`/api/audit?session_id=${sessionId}`);
    return audit.body.entries.map((e: { action: string }) => e.action);
  }

  describe(`durable pauses on ${kind}, across real processes`, () => {
    it('survives kill -9 of the process that paused: a new process resumes the same run', async () => {
      const first = await ownServer();
      const paused = await pauseTenImages(first.client);
      await first.kill('SIGKILL');

      const resume = await (await other()).client.post('/api/agent/resume', {
        session_id: paused.session_id,
        pause_id: paused.pause_id,
        approved: true,
      });
      expect(resume.status).toBe(200);
      expect(resume.body).toMatchObject({
        status: 'completed',
        invocation_id: paused.invocation_id,
      });
      expect(resume.body.artifacts).toHaveLength(10);
      expect(resume.body.result).toContain('REQ-10-HUMAN');
    });

    it.skipIf(oneProcess)(
      'two instances share one store: start on one, resume on the other',
      async () => {
        const paused = await pauseTenImages(a.client);
        const listed = await b.client.get('/api/approvals?user_id=fabricio');
        expect(listed.body.approvals.map((x: { session_id: string }) => x.session_id)).toContain(
          paused.session_id,
        );
        const resume = await b.client.post('/api/agent/resume', {
          session_id: paused.session_id,
          pause_id: paused.pause_id,
          approved: true,
        });
        expect(resume.body).toMatchObject({
          status: 'completed',
          invocation_id: paused.invocation_id,
        });
        expect((await a.client.get(`/api/sessions/${paused.session_id}`)).body.status).toBe('idle');
      },
    );

    it(`20 concurrent resumes on ${oneProcess ? 'one instance' : 'two instances'}: one runs the tool, 19 get 409`, async () => {
      const paused = await pauseTenImages(a.client);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? a : b).client.post('/api/agent/resume', {
            session_id: paused.session_id,
            pause_id: paused.pause_id,
            approved: true,
            user_id: `racer-${i}`,
          }),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      const conflicts = results.filter((r) => r.status === 409);
      expect(ok).toHaveLength(1);
      expect(conflicts).toHaveLength(19);
      for (const c of conflicts) expect(c.body.error.code).toBe('ALREADY_DECIDED');
      const log = await actions(a.client, paused.session_id);
      expect(log.filter((x) => x === 'executed')).toHaveLength(1);
      expect(log.filter((x) => x === 'decided')).toHaveLength(1);
      expect(log.filter((x) => x === 'resumed')).toHaveLength(1);
    });

    it('a pause older than its TTL answers 410 APPROVAL_EXPIRED on any instance, audited', async () => {
      const short = await ownServer('--pause-ttl', '1');
      const paused = await pauseTenImages(short.client);
      await short.kill('SIGKILL');
      await sleep(1200);
      const resume = await (await other()).client.post('/api/agent/resume', {
        session_id: paused.session_id,
        pause_id: paused.pause_id,
        approved: true,
      });
      expect(resume.status).toBe(410);
      expect(resume.body.error.code).toBe('APPROVAL_EXPIRED');
      expect(await actions((await other()).client, paused.session_id)).toEqual([
        'started',
        'requested',
        'expired',
      ]);
    });

    it('a new start on a paused session answers 409 SESSION_PAUSED', async () => {
      const paused = await pauseTenImages(a.client);
      const again = await a.client.post('/api/agent/start', {
        query: 'Generate 2 images',
        user_id: 'fabricio',
        session_id: paused.session_id,
      });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('SESSION_PAUSED');
    });

    // SQLite is inside the process: there is no database server to take down.
    if (kind === 'sqlite') return;

    it('the database down: 503 STORE_UNAVAILABLE; back up: the paused run still resumes', async () => {
      const paused = await pauseTenImages(a.client);
      await store.down();
      try {
        const down = await a.client.post('/api/agent/resume', {
          session_id: paused.session_id,
          pause_id: paused.pause_id,
          approved: true,
        });
        expect(down.status).toBe(503);
        expect(down.body.error.code).toBe('STORE_UNAVAILABLE');
        const start = await a.client.post('/api/agent/start', { query: 'hi', user_id: 'u' });
        expect(start.body.error.code).toBe('STORE_UNAVAILABLE');
        expect((await a.client.get('/healthz')).status).toBe(503);
      } finally {
        await store.up();
      }
      let health = await a.client.get('/healthz');
      for (let i = 0; i < 50 && health.status !== 200; i++) {
        await sleep(100);
        health = await a.client.get('/healthz');
      }
      expect(health.status).toBe(200);
      const resume = await a.client.post('/api/agent/resume', {
        session_id: paused.session_id,
        pause_id: paused.pause_id,
        approved: true,
      });
      expect(resume.body).toMatchObject({
        status: 'completed',
        invocation_id: paused.invocation_id,
      });
      expect(resume.body.artifacts).toHaveLength(10);
    });
  });
}
