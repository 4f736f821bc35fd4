import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { createHoldpoint, INVOCATION_ID, SESSION_ID, SessionSpanProcessor } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { knowledgeAssistant } from '../examples/knowledge-assistant/app.js';
import { FixtureServer } from '../examples/knowledge-assistant/fixture-server.test-support.js';
import { JsonClient } from './support/json-client.js';
import { ServerProcess } from './support/server-process.js';

// Real OS processes start slowly on a loaded 2-core machine; they are bounded by these
// limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

// Seed 003: every trace of one session can be collected by its `session.id`. Spans of
// a real conversation over real HTTP — requests, runs, ADK's agents, model calls and
// tool calls — are caught by an in-memory exporter.
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({
  spanProcessors: [new SessionSpanProcessor(), new SimpleSpanProcessor(exporter)],
});
provider.register();

let fixtures: FixtureServer;
let server: Server;
let holdpoint: ReturnType<typeof createHoldpoint>;
let client: JsonClient;

beforeAll(async () => {
  fixtures = await FixtureServer.start();
  holdpoint = createHoldpoint({
    apps: [knowledgeAssistant({ allowPrivateNetworks: true })],
    sweepIntervalSeconds: false,
  });
  server = createServer(holdpoint.handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  client = new JsonClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {});
});
afterAll(async () => {
  server.close();
  await holdpoint.close();
  await fixtures.stop();
  await provider.shutdown();
});

/** A conversation of `user`: a domain created, then a PDF's facts picked. */
async function converse(user: string): Promise<string> {
  const say = async (query: string, sessionId?: string) =>
    (await client.post('/api/agent/start', { user_id: user, query, session_id: sessionId })).body;
  const answer = async (approvalId: string, payload: unknown) =>
    (await client.post(`/api/approvals/${approvalId}`, { user_id: user, approved: true, payload }))
      .body;
  const { session_id: sessionId } = await say(`My name is ${user}`);
  await say('Create a domain', sessionId);
  const review = await say('rust programming: ownership and borrowing in rust', sessionId);
  await answer(review.approvals[0].approval_id, { item: 'Approve' });
  const pick = await say(`${fixtures.url}/docs/rust.pdf`, sessionId);
  const done = await answer(pick.approvals[0].approval_id, { items: ['f1'] });
  expect(done.status).toBe('completed');
  await client.get(`/api/sessions/${sessionId}?user_id=${user}`);
  return sessionId;
}

describe('tracing', () => {
  it('tags every span of a conversation with its session.id, and each run with its invocation id', async () => {
    const [ann, bob] = await Promise.all([converse('Ann'), converse('Bob')]);
    const spans = exporter.getFinishedSpans();
    const sessionOf = (span: ReadableSpan) => span.attributes[SESSION_ID];
    const traces = new Map<string, ReadableSpan[]>();
    for (const span of spans) {
      const trace = traces.get(span.spanContext().traceId) ?? [];
      trace.push(span);
      traces.set(span.spanContext().traceId, trace);
    }
    // Every span of every trace is its session's: nothing untagged, nothing mixed.
    for (const trace of traces.values()) {
      const sessions = new Set(trace.map(sessionOf));
      expect([...sessions], trace.map((s) => s.name).join()).toHaveLength(1);
      expect([ann, bob]).toContain([...sessions][0]);
    }
    const names = (sessionId: string) =>
      new Set(spans.filter((s) => sessionOf(s) === sessionId).map((s) => s.name));
    for (const sessionId of [ann, bob]) {
      expect([...names(sessionId)]).toEqual(
        expect.arrayContaining([
          'POST /api/agent/start',
          'POST /api/approvals/:approvalId',
          'GET /api/sessions/:id',
          'run knowledge-assistant',
          'invocation',
          'invoke_agent agent_root',
          'invoke_agent subagent_domain_lifecycle',
          'invoke_agent subagent_document_processor',
          'call_llm',
          'execute_tool record_user_name',
          'execute_tool review_domain_draft',
          'execute_tool process_pdf_link',
          'execute_tool save_fact_to_memory',
        ]),
      );
    }
    // Inside a run, every span also names Holdpoint's invocation id of that run.
    const runs = spans.filter((s) => s.name === 'run knowledge-assistant');
    for (const run of runs) {
      const invocationId = run.attributes[INVOCATION_ID];
      expect(invocationId).toMatch(/^inv-/);
      const inside = spans.filter((s) => s.parentSpanContext?.spanId === run.spanContext().spanId);
      expect(inside.length).toBeGreaterThan(0);
      for (const span of inside) expect(span.attributes[INVOCATION_ID]).toBe(invocationId);
    }
  });
});

describe('OTLP export from holdpoint serve', () => {
  it('is off by default, and sends the spans of a conversation where OTEL_* says', async () => {
    const received: unknown[] = [];
    const collector = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        if (request.url === '/v1/traces') received.push(JSON.parse(body));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    collector.listen(0, '127.0.0.1');
    await once(collector, 'listening');
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const app = ['--app', './examples/knowledge-assistant/app.ts', '--model', 'rules'];
    try {
      const off = await ServerProcess.start(app, {
        OTEL_TRACES_EXPORTER: '',
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
      });
      expect(off.logs.join('')).toContain('"traces":"off"');
      await off.kill();
      const api = await ServerProcess.start(app, {
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_SERVICE_NAME: 'knowledge-test',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      });
      expect(api.logs.join('')).toContain(`"traces":"${endpoint}"`);
      const { body } = await api.client.post('/api/agent/start', {
        user_id: 'ann',
        query: 'My name is Ann',
      });
      await api.kill('SIGTERM');
      const spans = JSON.stringify(received);
      expect(spans).toContain('"knowledge-test"');
      for (const name of ['POST /api/agent/start', 'run knowledge-assistant', 'call_llm']) {
        expect(spans).toContain(`"name":"${name}"`);
      }
      expect(spans).toContain(`{"key":"session.id","value":{"stringValue":"${body.session_id}"}}`);
    } finally {
      collector.close();
    }
  });
});
