import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { httpSpans } from './http-span.js';
import { SESSION_ID } from './session-attributes.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
trace.setGlobalTracerProvider(provider);
afterAll(() => provider.shutdown());

const app = new Hono();
app.use('/api/*', httpSpans());
app.get('/api/sessions/:id', (c) => c.text('session'));
app.get('/api/audit', (c) => c.text('audit'));

describe('httpSpans', () => {
  it('names each request by its route and tags the session it is about', async () => {
    exporter.reset();
    expect((await app.request('/api/sessions/s%201')).status).toBe(200);
    expect((await app.request('/api/audit?session_id=s-2')).status).toBe(200);
    expect(
      exporter
        .getFinishedSpans()
        .map((s) => [s.name, s.attributes[SESSION_ID], s.attributes['http.response.status_code']]),
    ).toEqual([
      ['GET /api/sessions/:id', 's 1', 200],
      ['GET /api/audit', 's-2', 200],
    ]);
  });

  it('never fails a request over a session id that is not valid percent-encoding', async () => {
    // Regression (fuzz test): `/api/audit?session_id=%25` made the span's decoding throw: a 500.
    exporter.reset();
    expect((await app.request('/api/audit?session_id=%25')).status).toBe(200);
    expect((await app.request('/api/sessions/%E0%A4')).status).toBe(200);
    expect(exporter.getFinishedSpans().map((s) => s.attributes[SESSION_ID])).toEqual([
      '%',
      '%E0%A4',
    ]);
  });
});
