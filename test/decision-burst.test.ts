import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHoldpoint, type Holdpoint, redisStore, type Store, sqliteStore } from 'holdpoint';
import { afterAll, describe, expect, it, vi } from 'vitest';
import payments from '../examples/payments/app.js';
import { internalStore } from '../src/library/stores.js';
import { PostgresScratch } from '../src/store/postgres/postgres-scratch.test-support.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { signedInAs } from './support/json-client.js';

// A burst of decisions is handled, not failed (issue 33, point 3): 50 paused payments, 20
// approvers deciding each at once (1,000 POST /api/approvals/:id) give exactly one 200
// per payment, 409 for the rest, no 5xx, and every run ends once, completed. On
// PostgreSQL the overload is made deterministic: each server has a pool of 2 connections
// whose holders are held until every request of the burst waits for one (and slowed
// after), so every request waits its turn in the queue at once.
const RUNS = 50;
const APPROVERS = 20;
const postgres = new PostgresScratch();
const redis = new RedisScratch();
const dirs: string[] = [];
afterAll(async () => {
  await postgres.cleanup();
  await redis.cleanup();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Holds the connections' holders until opened; then slows each of them. */
class HeldConnections {
  /** Callers held at a connection now. */
  held = 0;
  private open?: () => void;
  private readonly opened = new Promise<void>((resolve) => {
    this.open = resolve;
  });
  private holding = false;

  readonly onCheckout = async (): Promise<void> => {
    if (this.holding) {
      this.held += 1;
      await this.opened;
      this.held -= 1;
    }
    // A saturated machine: every holder gives the event loop a turn before it goes on.
    await new Promise((resolve) => setImmediate(resolve));
  };

  hold(): void {
    this.holding = true;
  }

  release(): void {
    this.holding = false;
    this.open?.();
  }
}

/** One or more servers on one store, and what the test reads of them. */
interface Burst {
  bases: string[];
  /** Requests that wait for a connection, on every server (PostgreSQL only). */
  waiting(): number;
  connections?: HeldConnections;
  store: Store;
  close(): Promise<void>;
}

/** A Holdpoint (an HTTP server) on each of `stores`. */
async function serve(stores: Store[], connections?: HeldConnections): Promise<Burst> {
  const holdpoints: Holdpoint[] = [];
  const servers: Server[] = [];
  const bases: string[] = [];
  for (const store of stores) {
    // Its schema checked before the burst: the check is every call's first wait.
    await internalStore(store).ping();
    const holdpoint = createHoldpoint({
      apps: [payments],
      store,
      sweepIntervalSeconds: false,
      limits: { requestsPerMinute: 0, runsPerMinute: 0 },
    });
    const server = createServer(holdpoint.handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holdpoints.push(holdpoint);
    servers.push(server);
    bases.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
  return {
    bases,
    connections,
    store: stores[0] as Store,
    waiting: () =>
      stores.reduce(
        (sum, store) => sum + (store instanceof PostgresStore ? store.waitingForConnection : 0),
        0,
      ),
    close: async () => {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
      for (const holdpoint of holdpoints) await holdpoint.close();
    },
  };
}

async function post(url: string, body: unknown, user: string, roles: string[] = []) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signedInAs(user, roles) },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** The error code of an answer (`{ error: { code } }`). */
function codeOf(answer: { body: Record<string, unknown> }): unknown {
  return (answer.body.error as { code?: string } | undefined)?.code;
}

/** Ann's 50 payments, each paused for an approver: their session and approval ids. */
async function pausedPayments(base: string) {
  const paused: { sessionId: string; approvalId: string }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = await post(
      `${base}/api/agent/start`,
      { app: 'payments', query: `Send $${100 + i} to Jiro` },
      'ann',
    );
    expect(started.body.status).toBe('pending_approval');
    const approvals = started.body.approvals as { approval_id: string }[];
    paused.push({
      sessionId: String(started.body.session_id),
      approvalId: String(approvals[0]?.approval_id),
    });
  }
  return paused;
}

/**
 * Every approver decides every payment at once, spread over the servers. With held
 * connections, they are released once `queued(waiting or held, answered)` is true:
 * by default, once every request waits for a connection or holds one.
 */
async function decideAtOnce(
  burst: Burst,
  paused: { approvalId: string }[],
  queued = (atConnections: number, _answered: number) => atConnections === RUNS * APPROVERS,
) {
  let answered = 0;
  const decisions = paused.flatMap(({ approvalId }, run) =>
    Array.from({ length: APPROVERS }, (_, k) => {
      const base = burst.bases[(run + k) % burst.bases.length];
      return post(`${base}/api/approvals/${approvalId}`, { approved: true }, `approver-${k}`, [
        'approver',
      ]).then((answer) => {
        answered += 1;
        return { approvalId, ...answer };
      });
    }),
  );
  const connections = burst.connections;
  if (connections) {
    await vi.waitFor(
      () => expect(queued(burst.waiting() + connections.held, answered)).toBe(true),
      { timeout: 60_000, interval: 20 },
    );
    connections.release();
  }
  return Promise.all(decisions);
}

/** Runs the burst on `burst` and checks every answer and every run. */
async function expectHandled(burst: Burst): Promise<void> {
  try {
    const paused = await pausedPayments(burst.bases[0] ?? '');
    burst.connections?.hold();
    const answers = await decideAtOnce(burst, paused);
    const statuses = new Map<number, number>();
    for (const { status } of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const serverErrors = answers.filter((answer) => answer.status >= 500);
    expect(serverErrors.map(codeOf)).toEqual([]);
    expect(Object.fromEntries(statuses)).toEqual({ 200: RUNS, 409: RUNS * (APPROVERS - 1) });
    for (const { approvalId } of paused) {
      const won = answers.filter((a) => a.approvalId === approvalId && a.status === 200);
      expect(won.map((a) => a.body.status)).toEqual(['completed']);
    }
    const store = internalStore(burst.store);
    for (const { sessionId } of paused) {
      const snapshot = await store.getSnapshot(sessionId);
      expect(snapshot?.run?.status).toBe('completed');
      const audit = await store.listAudit(sessionId, 0, 100);
      expect(audit.filter((line) => line.action === 'completed')).toHaveLength(1);
      expect(audit.filter((line) => line.action === 'decided')).toHaveLength(1);
    }
    const interrupted = await store.listInterrupted({ limit: 100 }, Date.now() + 3_600_000);
    expect(interrupted.items).toEqual([]);
  } finally {
    await burst.close();
  }
}

describe('a burst of 1,000 decisions on 50 paused payments', () => {
  it('on PostgreSQL past the bound of waiting requests: 503 STORE_BUSY with Retry-After, no run cut off', {
    timeout: 240_000,
  }, async () => {
    await postgres.ready();
    const connections = new HeldConnections();
    const maxWaiting = 100;
    const store = new PostgresStore({
      url: postgres.url,
      maxConnections: 1,
      maxWaiting,
      onCheckout: connections.onCheckout,
    });
    const burst = await serve([store], connections);
    try {
      const paused = await pausedPayments(burst.bases[0] ?? '');
      connections.hold();
      // One request holds the connection, `maxWaiting` wait, every other one is refused.
      const total = RUNS * APPROVERS;
      const answers = await decideAtOnce(
        burst,
        paused,
        (atConnections, answered) =>
          atConnections === maxWaiting + 1 && answered === total - maxWaiting - 1,
      );
      const refused = answers.filter((answer) => answer.status >= 500);
      expect(refused.length).toBe(total - maxWaiting - 1);
      expect(new Set(refused.map((a) => `${a.status} ${codeOf(a)} ${a.retryAfter}`))).toEqual(
        new Set(['503 STORE_BUSY 1']),
      );
      expect(answers.filter((a) => ![200, 409, 503].includes(a.status))).toEqual([]);
      const internal = internalStore(store);
      for (const { sessionId, approvalId } of paused) {
        const won = answers.filter((a) => a.approvalId === approvalId && a.status === 200);
        expect(won.length).toBeLessThanOrEqual(1);
        const snapshot = await internal.getSnapshot(sessionId);
        // Decided and completed once, or not decided at all: never cut off in between.
        expect(snapshot?.run?.status).toBe(won.length === 1 ? 'completed' : 'paused');
        const audit = await internal.listAudit(sessionId, 0, 100);
        expect(audit.filter((line) => line.action === 'decided')).toHaveLength(won.length);
      }
      const interrupted = await internal.listInterrupted({ limit: 100 }, Date.now() + 3_600_000);
      expect(interrupted.items).toEqual([]);
    } finally {
      await burst.close();
    }
  });

  it('on PostgreSQL, one server with a pool of 2 held under the burst', {
    timeout: 240_000,
  }, async () => {
    await postgres.ready();
    const connections = new HeldConnections();
    const store = new PostgresStore({
      url: postgres.url,
      maxConnections: 2,
      onCheckout: connections.onCheckout,
    });
    await expectHandled(await serve([store], connections));
  });

  it('on PostgreSQL, two servers with a pool of 2 each, held under the burst', {
    timeout: 240_000,
  }, async () => {
    await postgres.ready();
    const connections = new HeldConnections();
    const stores = [1, 2].map(
      () =>
        new PostgresStore({
          url: postgres.url,
          maxConnections: 2,
          onCheckout: connections.onCheckout,
        }),
    );
    await expectHandled(await serve(stores, connections));
  });

  it('on SQLite', { timeout: 240_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hp-burst-'));
    dirs.push(dir);
    await expectHandled(await serve([sqliteStore({ dataDir: dir })]));
  });

  it('on Redis, two servers', { timeout: 240_000 }, async () => {
    const stores = [1, 2].map(() => redisStore({ url: TEST_REDIS_URL, keyPrefix: redis.prefix }));
    await expectHandled(await serve(stores));
  });
});
