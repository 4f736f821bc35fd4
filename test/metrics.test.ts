import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createHoldpoint, type Holdpoint, type Store } from 'holdpoint';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { TestStores } from '../src/store/test-stores.test-support.js';
import {
  prometheusTextProblems,
  samplesOf,
} from '../src/telemetry/prometheus-text.test-support.js';
import approvalTools from './support/approval-tools-app.js';
import { JsonClient } from './support/json-client.js';
import { STORE_KINDS } from './support/two-instances.js';

// Holdpoint's metrics as Prometheus scrapes them from `/metrics`, over real HTTP, on both
// stores: an approval counts as waiting from its pause until it is decided, for every
// instance sharing the store, and its decision records how long it waited.

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const APP = 'approval-tools';
const TOOL = 'always_confirm';
const WAITING = 'holdpoint_approvals_waiting';
const DURATION = 'holdpoint_approval_decision_duration_seconds';

const stores = new TestStores();
afterAll(() => stores.cleanup());

/** A scrape of `base`'s `/metrics`, read by sample name and labels (undefined: absent). */
async function scrape(base: string) {
  const response = await fetch(`${base}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  // What the content type says it is, as a strict parser reads it.
  expect(prometheusTextProblems(text)).toEqual([]);
  return samplesOf(text);
}

async function listen(holdpoint: Holdpoint): Promise<{ server: Server; base: string }> {
  const server = createServer(holdpoint.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A run of `user` that pauses on one approval of always_confirm; its approval id. */
async function pause(client: JsonClient, user: string): Promise<string> {
  const started = await client.post('/api/agent/start', { user_id: user, query: 'always 5' });
  expect(started.body).toMatchObject({ status: 'pending_approval' });
  return started.body.approvals[0].approval_id;
}

async function decide(client: JsonClient, user: string, approvalId: string, approved: boolean) {
  const decided = await client.post(`/api/approvals/${approvalId}`, { user_id: user, approved });
  expect(decided.status).toBe(200);
}

describe.each(STORE_KINDS)('createHoldpoint({ metrics: "prometheus" }) on the %s store', (kind) => {
  const clock = new ManualClock(Date.now());
  let holdpoint: Holdpoint;
  let server: Server;
  let base: string;

  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    await holdpoint.close();
  });

  async function open(metrics?: 'prometheus') {
    const store = stores.byKind[kind]?.() as Store;
    holdpoint = createHoldpoint({
      apps: [approvalTools],
      store,
      metrics,
      clock,
      sweepIntervalSeconds: false,
    });
    ({ server, base } = await listen(holdpoint));
    return new JsonClient(base);
  }

  it('shows an approval waiting until it is decided, then how long it waited, by outcome', async () => {
    const client = await open('prometheus');
    const waiting = { app: APP, tool: TOOL };
    const approved = { app: APP, tool: TOOL, outcome: 'approved' };
    const denied = { app: APP, tool: TOOL, outcome: 'denied' };
    const first = await pause(client, 'ann');
    const second = await pause(client, 'bob');
    let read = await scrape(base);
    expect(read(WAITING, waiting)).toBe(2);
    expect(read(`${DURATION}_count`, approved)).toBeUndefined();

    clock.advance(90_000);
    await decide(client, 'ann', first, true);
    read = await scrape(base);
    expect(read(WAITING, waiting)).toBe(1);
    expect(read(`${DURATION}_count`, approved)).toBe(1);
    expect(read(`${DURATION}_sum`, approved)).toBe(90);
    expect(read(`${DURATION}_bucket`, { ...approved, le: '60' })).toBe(0);
    expect(read(`${DURATION}_bucket`, { ...approved, le: '120' })).toBe(1);
    expect(read(`${DURATION}_count`, denied)).toBeUndefined();

    clock.advance(10_000);
    await decide(client, 'bob', second, false);
    read = await scrape(base);
    expect(read(WAITING, waiting)).toBe(0);
    expect(read(`${DURATION}_count`, approved)).toBe(1);
    expect(read(`${DURATION}_count`, denied)).toBe(1);
    expect(read(`${DURATION}_sum`, denied)).toBe(100);
  });

  it('counts runs by what happened to them, and API requests by route and status', async () => {
    const client = await open('prometheus');
    const approvalId = await pause(client, 'ann');
    await decide(client, 'ann', approvalId, true);
    expect((await client.get('/api/nope')).status).toBe(404);
    const read = await scrape(base);
    const runs = (event: string) => read('holdpoint_run_events_total', { app: APP, event });
    expect(['started', 'paused', 'resumed', 'completed'].map(runs)).toEqual([1, 1, 1, 1]);
    expect(runs('failed')).toBeUndefined();
    // The run ended: no lease held, none interrupted (the gauge moves in telemetry/metrics.test).
    expect(read('holdpoint_runs', { state: 'running' })).toBe(0);
    expect(read('holdpoint_runs', { state: 'interrupted' })).toBe(0);
    const requests = (method: string, route: string, status: string) =>
      read('holdpoint_http_request_duration_seconds_count', { method, route, status });
    expect(requests('POST', '/api/agent/start', '200')).toBe(1);
    expect(requests('POST', '/api/approvals/:approvalId', '200')).toBe(1);
    // A path no operation has counts under the API's pattern, never by its own path.
    expect(requests('GET', '/api/*', '404')).toBe(1);
    const roundTrips = (roundTrip: string) =>
      read('holdpoint_store_round_trip_duration_seconds_count', {
        store: kind,
        round_trip: roundTrip,
        outcome: 'ok',
      }) ?? 0;
    // The start's first commit, the pause's, the decision's, the end's at least; a read each.
    expect(roundTrips('commit')).toBeGreaterThanOrEqual(4);
    expect(roundTrips('read')).toBeGreaterThanOrEqual(1);
    expect(
      read('holdpoint_http_request_duration_seconds_bucket', {
        method: 'POST',
        route: '/api/agent/start',
        status: '200',
        le: '+Inf',
      }),
    ).toBe(1);
  });

  it('says how late a pause was recorded expired: how far the sweep runs behind', async () => {
    const client = await open('prometheus');
    const approvalId = await pause(client, 'ann');
    // An hour to decide (the default), and five seconds more before anyone looks.
    clock.advance(3_600_000 + 5_000);
    expect((await client.get(`/api/approvals/${approvalId}`)).body.pause.status).toBe('expired');
    const read = await scrape(base);
    expect(read('holdpoint_pause_expiry_lag_seconds_count', { app: APP })).toBe(1);
    expect(read('holdpoint_pause_expiry_lag_seconds_sum', { app: APP })).toBe(5);
    expect(read('holdpoint_run_events_total', { app: APP, event: 'expired' })).toBe(1);
  });

  it('serves no /metrics unless asked', async () => {
    await open();
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
  });
});

describe('holdpoint serve --metrics prometheus: two servers sharing one Redis', () => {
  const shared = new TestStores();
  const servers: RunningServer[] = [];

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await shared.cleanup();
  });

  async function serve(): Promise<string> {
    const app = fileURLToPath(new URL('./support/approval-tools-app.ts', import.meta.url));
    const config = loadConfig(
      [
        ['--app', app, '--port', '0', '--log-level', 'silent', '--model', 'rules'],
        [
          '--store',
          'redis',
          '--redis-url',
          TEST_REDIS_URL,
          '--redis-prefix',
          shared.scratch.prefix,
        ],
        ['--metrics', 'prometheus'],
      ].flat(),
      {},
    );
    const server = await startServer(config);
    servers.push(server);
    return `http://127.0.0.1:${server.port}`;
  }

  it('shows each the same approvals waiting, whichever of them paused or decided them', async () => {
    const [one, two] = await Promise.all([serve(), serve()]);
    const waiting = { app: APP, tool: TOOL };
    const counts = async () =>
      Promise.all([one, two].map(async (base) => (await scrape(base))(WAITING, waiting)));

    const first = await pause(new JsonClient(one), 'ann');
    expect(await counts()).toEqual([1, 1]);
    const second = await pause(new JsonClient(two), 'bob');
    expect(await counts()).toEqual([2, 2]);
    await decide(new JsonClient(two), 'ann', first, true);
    expect(await counts()).toEqual([1, 1]);
    await decide(new JsonClient(one), 'bob', second, true);
    expect(await counts()).toEqual([0, 0]);
  });
});
