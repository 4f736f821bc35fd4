import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createHoldpoint, type Holdpoint } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payments from '../examples/payments/app.js';
import { signedInAs, TESTER } from './support/json-client.js';
import { userMessage } from './support/ui-stream.js';

// The OpenAPI document is what every route answers: it is a valid OpenAPI 3.1 document,
// and every documented operation, called with a valid and an invalid request, answers a
// status and a body the document gives for it.

let holdpoint: Holdpoint;
let server: Server;
let base: string;
// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON
let document: any;

beforeAll(async () => {
  holdpoint = createHoldpoint({
    apps: [payments],
    sweepIntervalSeconds: false,
    // Notifications on, so the deliveries' routes have one to show.
    notifications: {
      channels: [{ name: 'quiet', audience: 'endpoint', send: async () => undefined }],
    },
  });
  server = createServer(holdpoint.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const response = await fetch(`${base}/api/openapi.json`);
  expect(response.status).toBe(200);
  document = await response.json();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await holdpoint.close();
});

/** A request to an operation, and the status it must answer. */
interface Call {
  path: string;
  body?: unknown;
  status: number;
  code?: string;
  /** Who sends it, when not the tester (an admin and approver). */
  as?: Record<string, string>;
  /** An endless stream: its status and type are checked, then it is closed. */
  stream?: true;
  /** The request's Accept header, when the operation asks for one (MCP's streamable HTTP). */
  accept?: string;
}

/** What the test learned while calling (a session, its approval, its run). */
const seen: Record<string, string> = {};

/**
 * Each documented operation's calls, valid first: a test fails when an operation is
 * documented but has no entry here (add one with the operation).
 */
const CALLS: Record<string, () => Call[]> = {
  getMe: () => [{ path: '/api/me', status: 200 }],
  listApps: () => [{ path: '/api/apps', status: 200 }],
  health: () => [{ path: '/healthz', status: 200 }],
  getStoreStats: () => [
    { path: '/api/store', status: 200 },
    { path: '/api/store', status: 403, code: 'FORBIDDEN', as: signedInAs('ann') },
  ],
  startRun: () => [
    // Ann asks, so the tester may approve.
    {
      path: '/api/agent/start',
      body: { query: 'Send $5 to Bo', user_id: 'ann' },
      status: 200,
      as: signedInAs('ann'),
    },
    { path: '/api/agent/start', body: { query: '' }, status: 400, code: 'VALIDATION_FAILED' },
    { path: '/api/agent/start', body: '{not json', status: 400, code: 'INVALID_JSON' },
  ],
  listSessions: () => [
    { path: '/api/sessions?limit=5', status: 200 },
    { path: '/api/sessions?limit=0', status: 400, code: 'VALIDATION_FAILED' },
  ],
  getSession: () => [
    { path: `/api/sessions/${seen.session}`, status: 200 },
    { path: '/api/sessions/nobody-knows', status: 404, code: 'SESSION_NOT_FOUND' },
  ],
  getSessionMessages: () => [
    { path: `/api/sessions/${seen.session}/messages`, status: 200 },
    { path: '/api/sessions/nobody-knows/messages', status: 404, code: 'SESSION_NOT_FOUND' },
  ],
  listApprovals: () => [
    { path: '/api/approvals?limit=10', status: 200 },
    { path: '/api/approvals?limit=0', status: 400, code: 'VALIDATION_FAILED' },
  ],
  approvalEvents: () => [{ path: '/api/approvals/events', status: 200, stream: true }],
  getApproval: () => [
    { path: `/api/approvals/${seen.approval}`, status: 200 },
    { path: '/api/approvals/nobody-knows', status: 404, code: 'APPROVAL_NOT_FOUND' },
    {
      path: `/api/approvals/${seen.approval}`,
      status: 403,
      code: 'FORBIDDEN',
      as: signedInAs('eve'),
    },
  ],
  readAudit: () => [
    { path: `/api/audit?session_id=${seen.session}`, status: 200 },
    { path: `/api/audit?session_id=${seen.session}&format=ndjson`, status: 200 },
    { path: '/api/audit', status: 400, code: 'VALIDATION_FAILED' },
  ],
  decideApproval: () => [
    { path: `/api/approvals/${seen.approval}`, body: { approved: true }, status: 200 },
    { path: `/api/approvals/${seen.approval}`, body: { aproved: true }, status: 400 },
  ],
  reassignApproval: () => [
    {
      path: `/api/approvals/${seen.approval}/reassign`,
      body: { to: 'dave', reason: 'knows the vendor' },
      status: 200,
    },
    { path: `/api/approvals/${seen.approval}/reassign`, body: { to: '' }, status: 400 },
    {
      path: '/api/approvals/nobody-knows/reassign',
      body: { to: 'dave' },
      status: 404,
      code: 'APPROVAL_NOT_FOUND',
    },
  ],
  setDelegation: () => [
    {
      path: '/api/delegations/me',
      body: { delegate: 'dave', until: new Date(Date.now() + 3_600_000).toISOString() },
      status: 200,
    },
    { path: '/api/delegations/me', body: { delegate: 'dave', until: 'soon' }, status: 400 },
    {
      path: '/api/delegations/ann',
      body: { delegate: 'dave', until: new Date(Date.now() + 3_600_000).toISOString() },
      status: 403,
      code: 'FORBIDDEN',
      as: signedInAs('eve'),
    },
  ],
  getDelegation: () => [
    { path: '/api/delegations/me', status: 200 },
    { path: '/api/delegations/ann', status: 403, code: 'FORBIDDEN', as: signedInAs('eve') },
  ],
  clearDelegation: () => [
    { path: '/api/delegations/me', status: 200 },
    { path: '/api/delegations/ann', status: 403, code: 'FORBIDDEN', as: signedInAs('eve') },
  ],
  listGrants: () => [
    { path: '/api/grants?limit=5', status: 200 },
    { path: '/api/grants?user_id=ann', status: 200 },
    { path: '/api/grants?limit=0', status: 400, code: 'VALIDATION_FAILED' },
    { path: '/api/grants?user_id=ann', status: 403, code: 'FORBIDDEN', as: signedInAs('eve') },
  ],
  revokeGrant: () => [{ path: '/api/grants/grt_nobody', status: 404, code: 'GRANT_NOT_FOUND' }],
  resumeRun: () => [
    {
      path: '/api/agent/resume',
      body: { session_id: seen.session, approved: true },
      status: 409,
      code: 'ALREADY_DECIDED',
    },
    { path: '/api/agent/resume', body: { session_id: seen.session }, status: 400 },
  ],
  cancelPause: () => [
    { path: '/api/agent/cancel', body: { session_id: seen.session }, status: 409 },
    { path: '/api/agent/cancel', body: { reason: 'no session' }, status: 400 },
  ],
  listRuns: () => [
    { path: '/api/runs?status=interrupted', status: 200 },
    { path: '/api/runs?status=running', status: 400, code: 'VALIDATION_FAILED' },
  ],
  getRun: () => [
    { path: `/api/runs/${seen.run}`, status: 200 },
    { path: '/api/runs/nobody-knows', status: 404, code: 'RUN_NOT_FOUND' },
  ],
  recoverRun: () => [
    { path: `/api/runs/${seen.run}/resume`, body: {}, status: 409 },
    { path: `/api/runs/${seen.run}/resume`, body: { who: 'me' }, status: 400 },
  ],
  cancelRun: () => [
    { path: `/api/runs/${seen.run}/cancel`, body: { reason: 'done' }, status: 409 },
    { path: `/api/runs/${seen.run}/cancel`, body: { reason: 7 }, status: 400 },
  ],
  listDeliveries: () => [
    { path: '/api/deliveries?limit=5', status: 200 },
    { path: '/api/deliveries?status=lost', status: 400, code: 'VALIDATION_FAILED' },
    { path: '/api/deliveries', status: 403, code: 'FORBIDDEN', as: signedInAs('ann') },
  ],
  getDelivery: () => [
    { path: `/api/deliveries/${seen.delivery}`, status: 200 },
    { path: '/api/deliveries/dlv_nobody', status: 404, code: 'NOT_FOUND' },
  ],
  resendDelivery: () => [
    { path: `/api/deliveries/${seen.delivery}/resend`, body: {}, status: 200 },
    { path: `/api/deliveries/${seen.delivery}/resend`, body: { now: true }, status: 400 },
  ],
  chat: () => [
    {
      path: '/api/chat',
      body: { id: 'chat-1', messages: [userMessage('Send $3 to Bo')] },
      status: 200,
    },
    { path: '/api/chat', body: { id: 'chat-2', messages: [] }, status: 400 },
  ],
  getA2aAgentCard: () => [
    { path: '/api/a2a/payments/.well-known/agent-card.json', status: 200, as: {} },
    { path: '/api/a2a/nope/.well-known/agent-card.json', status: 400, code: 'UNKNOWN_APP' },
  ],
  a2aJsonRpc: () => [
    {
      path: '/api/a2a/payments',
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: 'openapi-1',
            role: 'user',
            parts: [{ kind: 'text', text: 'Send $3 to Bo' }],
          },
        },
      },
      status: 200,
    },
    { path: '/api/a2a/payments', body: { jsonrpc: '2.0', id: 2, method: 'nope' }, status: 200 },
    { path: '/api/a2a/payments', body: '{"jsonrpc":', status: 400, code: 'INVALID_JSON' },
  ],
  mcp: () => [
    {
      path: '/api/mcp/payments',
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'openapi-test', version: '1.0.0' },
        },
      },
      accept: 'application/json, text/event-stream',
      status: 200,
    },
    { path: '/api/mcp/nope', body: { jsonrpc: '2.0', id: 1, method: 'ping' }, status: 400 },
  ],
  runAgUi: () => [
    {
      path: '/api/ag-ui/payments',
      body: {
        threadId: 'openapi-thread',
        runId: 'run-1',
        messages: [{ id: 'm1', role: 'user', content: 'Send $3 to Bo' }],
      },
      status: 200,
    },
    { path: '/api/ag-ui/payments', body: { threadId: 'openapi-thread' }, status: 400 },
    { path: '/api/ag-ui/nope', body: { threadId: 't', runId: 'r', messages: [] }, status: 400 },
  ],
};

/** The operations in the order a session's life calls them (what one learns, the next uses). */
const ORDER = [
  'getMe',
  'listApps',
  'health',
  'getStoreStats',
  'startRun',
  'listSessions',
  'getSession',
  'getSessionMessages',
  'listApprovals',
  'approvalEvents',
  'getApproval',
  'readAudit',
  'reassignApproval',
  'setDelegation',
  'getDelegation',
  'clearDelegation',
  'listGrants',
  'revokeGrant',
  'decideApproval',
  'resumeRun',
  'cancelPause',
  'listRuns',
  'getRun',
  'recoverRun',
  'cancelRun',
  'listDeliveries',
  'getDelivery',
  'resendDelivery',
  'chat',
  'runAgUi',
  'getA2aAgentCard',
  'a2aJsonRpc',
  'mcp',
];

/** Every operation of the document: its id, method and path as the routes take it. */
function documentedOperations(): { id: string; method: string; path: string }[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods as Record<string, { operationId: string }>).map(([method, op]) => ({
      id: op.operationId,
      method,
      path: path.replace(/\{(\w+)\}/g, ':$1'),
    })),
  );
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it("carries an operation's description, when its definition has one", () => {
    const reassign = document.paths['/api/approvals/{approvalId}/reassign'].post;
    expect(reassign.description).toContain('`403` with `reason: "requester"`');
    expect(document.paths['/api/me'].get.description).toBeUndefined();
  });

  it('lists every route, each called below', () => {
    const ids = documentedOperations().map((op) => op.id);
    expect(ids.sort()).toEqual([...ORDER].sort());
    expect(Object.keys(CALLS).sort()).toEqual([...ORDER].sort());
  });

  it('is what every route answers, to valid and invalid requests', async () => {
    const operations = new Map(documentedOperations().map((op) => [op.id, op]));
    const refs = JSON.stringify(document.components.schemas).replaceAll(
      '"#/components/schemas/',
      '"openapi.json#/components/schemas/',
    );
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'openapi.json', components: { schemas: JSON.parse(refs) } });
    for (const id of ORDER) {
      const operation = operations.get(id);
      if (!operation) throw new Error(`${id} is not documented`);
      const documented =
        document.paths[operation.path.replace(/:(\w+)/g, '{$1}')][operation.method];
      for (const call of CALLS[id]?.() ?? []) {
        const response = await fetch(`${base}${call.path}`, {
          method: operation.method.toUpperCase(),
          headers: {
            'content-type': 'application/json',
            ...(call.accept ? { accept: call.accept } : {}),
            ...(call.as ?? TESTER),
          },
          ...(call.body === undefined
            ? {}
            : { body: typeof call.body === 'string' ? call.body : JSON.stringify(call.body) }),
        });
        const where = `${id} ${call.path} ${JSON.stringify(call.body ?? null)}`;
        expect(response.status, where).toBe(call.status);
        const answer =
          documented.responses[String(response.status)] ?? documented.responses.default;
        expect(answer, where).toBeDefined();
        const type = (response.headers.get('content-type') ?? '').split(';')[0] ?? '';
        expect(Object.keys(answer.content), where).toContain(type);
        if (call.stream) {
          await response.body?.cancel();
          continue;
        }
        const text = await response.text();
        if (type !== 'application/json') continue;
        const body = JSON.parse(text);
        const schema = JSON.parse(
          JSON.stringify(answer.content[type].schema).replaceAll(
            '"#/components/schemas/',
            '"openapi.json#/components/schemas/',
          ),
        );
        const validate = ajv.compile(schema);
        expect(validate(body) ? [] : validate.errors, where).toEqual([]);
        if (call.code) expect(body.error.code, where).toBe(call.code);
        if (id === 'startRun' && call.status === 200) {
          seen.session = body.session_id;
          seen.run = body.invocation_id;
          seen.approval = body.approvals[0].approval_id;
        }
        if (id === 'listDeliveries' && call.status === 200) {
          seen.delivery = body.deliveries[0].delivery_id;
        }
      }
    }
  });
});
