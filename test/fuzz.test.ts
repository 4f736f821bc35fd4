import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { EventSchemas } from '@ag-ui/core/schemas';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { announceBody } from './support/raw-http.js';
import { encodeFrame, rawWebSocket, textFrame } from './support/raw-websocket.js';
import { ServerProcess } from './support/server-process.js';

// A real server process on the default (memory) store: a crash shows as the process
// exiting, a leak as its resident memory.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

let server: ServerProcess;
/** Ids of real sessions and approvals, so generated requests reach deep code paths. */
const sessions: string[] = [];
const approvals: string[] = [];

beforeAll(async () => {
  server = await ServerProcess.start(['--model', 'rules']);
  for (const [app, query] of [
    ['image-studio', 'Generate 10 images'],
    ['payments', 'send 50 EUR to Ana and $20 to Bob'],
    ['picker', 'pick a fruit'],
  ]) {
    const { body } = await server.client.post('/api/agent/start', { query, user_id: 'fuzz', app });
    sessions.push(body.session_id);
    approvals.push(...body.approvals.map((a: { approval_id: string }) => a.approval_id));
  }
});

afterAll(async () => {
  await server.kill('SIGTERM');
});

async function residentBytes(): Promise<number> {
  const status = await readFile(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
}

/** Who fuzzing requests sign in as: an admin, so every handler is reached. */
const FUZZER = 'fuzzer';

/**
 * Sends a raw request on a connection of its own (the server may close one after a
 * refused body); answers its status once the whole response was read.
 */

function send(method: 'GET' | 'POST', path: string, body?: string, user = FUZZER): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { 'x-holdpoint-user': user, 'x-holdpoint-roles': 'admin' };
    const req = httpRequest(
      { host: '127.0.0.1', port: server.port, method, path, agent: false, headers },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.setHeader('content-type', 'application/json');
    req.end(body);
  });
}

/**
 * A value nested `depth` arrays deep once serialized; printed as `Deep(n)`, so a
 * failing case stays readable (and printable at all).
 */
class Deep {
  constructor(readonly depth: number) {}

  [fc.toStringMethod](): string {
    return `Deep(${this.depth})`;
  }
}

/** `value` as JSON text, each Deep written as its nested arrays (no recursion needed). */
function jsonText(value: unknown): string {
  const deeps: Deep[] = [];
  const text =
    JSON.stringify(value, (_key, v: unknown) =>
      v instanceof Deep ? `\u0000deep${deeps.push(v) - 1}\u0000` : v,
    ) ?? 'null';
  return text.replace(/"\\u0000deep(\d+)\\u0000"/g, (_match, index: string) => {
    const depth = deeps[Number(index)]?.depth ?? 0;
    return '['.repeat(depth) + ']'.repeat(depth);
  });
}

/** What generated requests are made of; built once the real ids exist. */
function generators() {
  const nested = fc.integer({ min: 30, max: 5_000 }).map((depth) => new Deep(depth));
  const hostileText = fc.oneof(
    fc.nat({ max: 20_000 }).map((n) => `送金${'あ'.repeat(n)}`),
    fc.nat({ max: 3_000 }).map((n) => 'make 1 '.repeat(n)),
    fc.nat({ max: 10_000 }).map((n) => `送金${'xに'.repeat(n)}`),
    fc.constantFrom('Generate 10 images', 'Send $200 to Jiro', 'pick a fruit', 'yes', ''),
    fc.string({ maxLength: 300 }),
  );
  const value = fc.oneof(fc.jsonValue(), nested, hostileText, fc.anything());
  const id = fc.oneof(
    fc.constantFrom(...['s', 'nope', '']),
    fc.string({ maxLength: 300 }),
    fc.constant(undefined),
  );
  const realId = (ids: string[]) => fc.oneof(fc.constantFrom(...ids), id);
  const extra = fc.dictionary(fc.string({ maxLength: 10 }), value, { maxKeys: 2 });
  const decision = fc.record(
    {
      approval_id: realId(approvals),
      approved: fc.oneof(fc.boolean(), value),
      reason: fc.oneof(fc.string({ maxLength: 3_000 }), value),
      payload: value,
    },
    { requiredKeys: [] },
  );
  const chatMessage = fc.record({
    id: fc.string({ maxLength: 20 }),
    role: fc.constantFrom('user', 'assistant', 'system', 'other'),
    parts: fc.array(
      fc.oneof(
        fc.record({ type: fc.constant('text'), text: hostileText }),
        fc.record({
          type: fc.constantFrom('tool-select_item', 'tool-process_payment', 'dynamic-tool'),
          toolCallId: realId(approvals),
          state: fc.constantFrom('approval-responded', 'output-available', 'output-error'),
          output: value,
          errorText: fc.string({ maxLength: 50 }),
          approval: fc.record({ id: realId(approvals), approved: fc.boolean(), reason: value }),
        }),
        value,
      ),
      { maxLength: 4 },
    ),
    metadata: fc.oneof(fc.record({ sessionId: realId(sessions) }), value),
  });
  const chatBody = fc.record(
    {
      id: fc.string({ maxLength: 20 }),
      messages: fc.array(chatMessage, { minLength: 0, maxLength: 3 }),
      app: fc.oneof(fc.constantFrom('image-studio', 'payments', 'picker'), value),
      sessionId: realId(sessions),
      userId: id,
    },
    { requiredKeys: [] },
  );

  /** Any request a client could send to any endpoint, from nearly right to nonsense. */
  const request = fc.oneof(
    fc.tuple(
      fc.constant('/api/agent/start'),
      fc.record(
        { query: hostileText, user_id: id, app: value, session_id: realId(sessions) },
        { requiredKeys: [] },
      ),
    ),
    fc.tuple(
      fc.constant('/api/agent/resume'),
      fc.record(
        {
          session_id: realId(sessions),
          approved: fc.oneof(fc.boolean(), value),
          decisions: fc.oneof(fc.array(decision, { maxLength: 3 }), value),
          user_id: id,
        },
        { requiredKeys: ['session_id'] },
      ),
    ),
    fc.tuple(
      fc.constant('/api/agent/cancel'),
      fc.record({ session_id: realId(sessions), reason: value }, { requiredKeys: [] }),
    ),
    fc.tuple(
      realId(approvals).map((a) => `/api/approvals/${encodeURIComponent(String(a))}`),
      decision,
    ),
    fc.tuple(fc.constant('/api/chat'), chatBody),
    fc.tuple(
      fc.constantFrom('/api/agent/start', '/api/agent/resume', '/api/chat'),
      fc.oneof(value, extra),
    ),
  );
  const query = fc.oneof(
    realId(sessions).map((s) => `/api/sessions/${encodeURIComponent(String(s))}`),
    realId(sessions).map((s) => `/api/sessions/${encodeURIComponent(String(s))}/messages`),
    fc
      .tuple(id, fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), fc.string({ maxLength: 50 }))
      .map(
        ([user, limit, cursor]) =>
          `/api/approvals?user_id=${encodeURIComponent(String(user))}&limit=${encodeURIComponent(String(limit))}&cursor=${encodeURIComponent(cursor)}`,
      ),
    realId(sessions).map((s) => `/api/audit?session_id=${encodeURIComponent(String(s))}`),
  );
  const nearlyRightAgUiBody = fc.record(
    {
      threadId: fc.oneof(fc.constantFrom(...sessions), fc.uuid()),
      runId: fc.uuid(),
      messages: fc.array(
        fc.record({ id: fc.uuid(), role: fc.constant('user'), content: hostileText }),
        { minLength: 1, maxLength: 2 },
      ),
      resume: fc.array(
        fc.record({
          interruptId: fc.constantFrom(...approvals, 'nope'),
          status: fc.constantFrom('resolved', 'cancelled'),
          payload: fc.record(
            { approved: fc.boolean(), reason: fc.string({ maxLength: 50 }) },
            { requiredKeys: ['approved'] },
          ),
        }),
        { minLength: 1, maxLength: 2 },
      ),
    },
    { requiredKeys: ['threadId', 'runId', 'messages'] },
  );
  const hostileAgUiBody = fc.record(
    {
      threadId: realId(sessions),
      runId: id,
      messages: fc.oneof(
        fc.array(
          fc.record(
            {
              id: fc.string({ maxLength: 20 }),
              role: fc.constantFrom('user', 'assistant', 'tool', 'activity', 'other'),
              content: fc.oneof(
                hostileText,
                fc.array(fc.record({ type: fc.constant('text'), text: hostileText }), {
                  maxLength: 2,
                }),
                value,
              ),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        ),
        value,
      ),
      resume: fc.oneof(
        fc.array(
          fc.record(
            {
              interruptId: realId(approvals),
              status: fc.constantFrom('resolved', 'cancelled', 'other'),
              payload: fc.oneof(
                fc.record(
                  {
                    approved: fc.oneof(fc.boolean(), value),
                    reason: value,
                    editedArgs: value,
                    argsHash: value,
                  },
                  { requiredKeys: [] },
                ),
                value,
              ),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        ),
        value,
      ),
      tools: value,
      state: value,
      forwardedProps: value,
    },
    { requiredKeys: ['threadId', 'runId', 'messages'] },
  );
  const agUiBody = fc.oneof({ weight: 3, arbitrary: nearlyRightAgUiBody }, hostileAgUiBody);
  const agUiPath = fc
    .oneof(
      { weight: 4, arbitrary: fc.constantFrom('payments', 'picker', 'image-studio', 'nope') },
      fc.string({ maxLength: 120 }),
    )
    .map((app) => `/api/ag-ui/${encodeURIComponent(app)}`);
  const a2aPart = fc.oneof(
    fc.record({ text: hostileText }),
    fc.record({ kind: fc.constant('text'), text: hostileText }),
    fc.record({
      data: fc.oneof(
        fc.record(
          {
            approvalId: fc.constantFrom(...approvals, 'nope'),
            approved: fc.boolean(),
            reason: value,
          },
          { requiredKeys: ['approved'] },
        ),
        value,
      ),
    }),
    fc.record({ kind: fc.constant('data'), data: fc.record({ approved: fc.boolean() }) }),
    value,
  );
  const a2aBody = fc.record(
    {
      jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant('2.0') }, value),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), value),
      method: fc.oneof(
        {
          weight: 5,
          arbitrary: fc.constantFrom(
            'message/send',
            'message/stream',
            'tasks/get',
            'tasks/cancel',
            'tasks/resubscribe',
            'SendMessage',
            'SendStreamingMessage',
            'GetTask',
            'CancelTask',
            'ListTasks',
          ),
        },
        fc.string({ maxLength: 30 }),
      ),
      params: fc.oneof(
        {
          weight: 4,
          arbitrary: fc.record(
            {
              id: realId(sessions),
              message: fc.record(
                {
                  kind: fc.constant('message'),
                  messageId: fc.uuid(),
                  role: fc.constantFrom('user', 'agent', 'ROLE_USER', 'ROLE_AGENT', 'x'),
                  taskId: realId(sessions),
                  contextId: fc.oneof(fc.uuid(), realId(sessions)),
                  parts: fc.array(a2aPart, { maxLength: 3 }),
                },
                { requiredKeys: ['messageId', 'role', 'parts'] },
              ),
            },
            { requiredKeys: [] },
          ),
        },
        value,
      ),
    },
    { requiredKeys: ['jsonrpc', 'method'] },
  );
  const a2aVersion = fc.constantFrom(undefined, '1.0', '0.3', '2.0', '');
  const mcpBody = fc.record(
    {
      jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant('2.0') }, value),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), value),
      method: fc.oneof(
        {
          weight: 5,
          arbitrary: fc.constantFrom('initialize', 'tools/list', 'tools/call', 'ping'),
        },
        fc.string({ maxLength: 30 }),
      ),
      params: fc.oneof(
        {
          weight: 4,
          arbitrary: fc.record(
            {
              name: fc.oneof(fc.constantFrom('payments', 'picker'), fc.string({ maxLength: 20 })),
              arguments: fc.oneof(
                fc.record(
                  { message: hostileText, session_id: realId(sessions) },
                  { requiredKeys: [] },
                ),
                value,
              ),
              protocolVersion: fc.constantFrom('2025-06-18', '2025-11-25', 'x'),
              capabilities: value,
              clientInfo: fc.record({ name: fc.string(), version: fc.string() }),
            },
            { requiredKeys: [] },
          ),
        },
        value,
      ),
    },
    { requiredKeys: ['jsonrpc', 'method'] },
  );
  return {
    value,
    request,
    query,
    chatMessage,
    chatBody,
    realId,
    agUiBody,
    agUiPath,
    a2aBody,
    a2aVersion,
    mcpBody,
  };
}

const CLIENT_CLOSE = { fin: true, rsv: 0, opcode: 8, masked: true } as const;
/** Normal, going away, protocol error, unsupported, bad data, policy, too big, server error. */
const PROPER_CLOSE_CODES = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1011];

/** The code of the close frame the server sent, if it sent one (frames from a server are unmasked). */
function serverCloseCode(bytes: Buffer): number | undefined {
  let at = 0;
  while (at + 2 <= bytes.length) {
    const opcode = (bytes[at] as number) & 15;
    let length = (bytes[at + 1] as number) & 127;
    let start = at + 2;
    if (length === 126) {
      length = bytes.readUInt16BE(start);
      start += 2;
    } else if (length === 127) {
      length = Number(bytes.readBigUInt64BE(start));
      start += 8;
    }
    if (opcode === 8) return length >= 2 ? bytes.readUInt16BE(start) : 1005;
    at = start + length;
  }
  return undefined;
}

describe('fuzzing every endpoint and frame', () => {
  it('answers every request with a stable code, never a 500, and stays up', async () => {
    const { request, query } = generators();
    // Mostly the fuzzer; sometimes any name a header can carry, the identity's own input.
    const user = fc.oneof(
      { weight: 4, arbitrary: fc.constant(FUZZER) },
      fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,300}$/),
    );
    await fc.assert(
      fc.asyncProperty(request, user, async ([path, body], who) => {
        const raw = jsonText(body);
        const status = await send('POST', path, raw, who);
        expect(status, `${who} ${path} ${raw.slice(0, 200)}`).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
    await fc.assert(
      fc.asyncProperty(query, async (path) => {
        expect(await send('GET', path), path).toBeLessThan(500);
      }),
      { numRuns: 100 },
    );
    for (const broken of ['{"query":', '[[[[', '\u0000']) {
      expect(await send('POST', '/api/agent/start', broken)).toBeLessThan(500);
    }
    const huge = await announceBody(server.port, '/api/agent/start', 2_000_000, {
      'x-holdpoint-user': FUZZER,
    });
    expect(huge.status).toBe(413);
    expect(await send('GET', '/healthz')).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });

  it('AG-UI: answers a stable code before the stream, or AG-UI events, never INTERNAL', async () => {
    const { agUiBody, agUiPath } = generators();
    await fc.assert(
      fc.asyncProperty(agUiPath, agUiBody, async (path, body) => {
        const raw = jsonText(body);
        const response = await fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-holdpoint-user': FUZZER,
            'x-holdpoint-roles': 'admin',
          },
          body: raw,
        });
        const text = await response.text();
        const where = `${path} ${raw.slice(0, 200)}`;
        expect(response.status, where).toBeLessThan(500);
        if (response.status !== 200) {
          expect(JSON.parse(text).error.code, where).toEqual(expect.any(String));
          return;
        }
        const events = text
          .split('\n\n')
          .filter(Boolean)
          .map((frame) => EventSchemas.parse(JSON.parse(frame.replace(/^data: /, ''))));
        expect(events[0]?.type, where).toBe('RUN_STARTED');
        const last = events.at(-1) as { type: string; code?: string };
        expect(['RUN_FINISHED', 'RUN_ERROR'], where).toContain(last.type);
        expect(last.code, where).not.toBe('INTERNAL');
      }),
      { numRuns: 150 },
    );
    // And a well-formed run still runs after all of it.
    const valid = await fetch(`${server.url}/api/ag-ui/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-holdpoint-user': FUZZER },
      body: JSON.stringify({
        threadId: 'fuzz-after',
        runId: 'r1',
        messages: [{ id: 'm1', role: 'user', content: 'Send $2 to Bo' }],
      }),
    });
    expect(await valid.text()).toContain('"type":"RUN_FINISHED"');
    expect(await send('GET', '/healthz')).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });

  it('A2A: answers JSON-RPC envelopes or their stream, never an internal error', async () => {
    const { a2aBody, a2aVersion } = generators();
    await fc.assert(
      fc.asyncProperty(a2aBody, a2aVersion, async (body, version) => {
        const raw = jsonText(body);
        const response = await fetch(`${server.url}/api/a2a/payments`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-holdpoint-user': FUZZER,
            'x-holdpoint-roles': 'admin',
            ...(version === undefined ? {} : { 'A2A-Version': version }),
          },
          body: raw,
        });
        const text = await response.text();
        const where = `${version} ${raw.slice(0, 200)}`;
        expect(response.status, where).toBeLessThan(500);
        if (response.status !== 200) return;
        const envelopes = (response.headers.get('content-type') ?? '').startsWith(
          'text/event-stream',
        )
          ? text
              .split('\n\n')
              .filter(Boolean)
              .map((frame) => JSON.parse(frame.replace(/^(event: error\n)?data: /, '')))
          : [JSON.parse(text)];
        for (const envelope of envelopes) {
          expect(envelope.jsonrpc, where).toBe('2.0');
          expect(envelope.error?.code, where).not.toBe(-32603);
        }
      }),
      { numRuns: 150 },
    );
    // And a well-formed message still starts a task after all of it.
    const valid = await fetch(`${server.url}/api/a2a/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-holdpoint-user': FUZZER },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: 'fuzz-after',
            role: 'user',
            parts: [{ kind: 'text', text: 'Send $2 to Bo' }],
          },
        },
      }),
    });
    expect((await valid.json()).result).toMatchObject({ kind: 'task' });
    expect(await send('GET', '/healthz')).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });

  it('MCP: answers JSON-RPC envelopes; the tool refuses with stable codes', async () => {
    const { mcpBody } = generators();
    await fc.assert(
      fc.asyncProperty(mcpBody, async (body) => {
        const raw = jsonText(body);
        const response = await fetch(`${server.url}/api/mcp/payments`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'x-holdpoint-user': FUZZER,
            'x-holdpoint-roles': 'admin',
          },
          body: raw,
        });
        const text = await response.text();
        const where = raw.slice(0, 200);
        expect(response.status, where).toBeLessThan(500);
        if (response.status !== 200 || text === '') return;
        const envelope = JSON.parse(text);
        expect(envelope.jsonrpc, where).toBe('2.0');
        // The MCP SDK answers its own methods' malformed params with -32603 and the
        // reason; the tool's own refusals are results that lead with a stable code.
        const refusal = envelope.result?.isError ? envelope.result.content?.[0]?.text : undefined;
        if (refusal !== undefined) expect(refusal, where).toMatch(/^([A-Z_]+|MCP error -\d+): /);
      }),
      { numRuns: 150 },
    );
    // And a well-formed call still runs after all of it.
    const valid = await fetch(`${server.url}/api/mcp/payments`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-holdpoint-user': FUZZER,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'payments', arguments: { message: 'Send $2 to Bo' } },
      }),
    });
    expect((await valid.json()).result.structuredContent).toMatchObject({
      status: 'pending_approval',
    });
    expect(await send('GET', '/healthz')).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });

  it('closes only the socket that sent a bad frame, with a proper code', async () => {
    const { value, chatMessage, chatBody, realId } = generators();
    const frame = fc.record({
      fin: fc.boolean(),
      rsv: fc.integer({ min: 0, max: 7 }),
      opcode: fc.integer({ min: 0, max: 15 }),
      masked: fc.boolean(),
      payload: fc.oneof(
        fc.uint8Array({ maxLength: 2_000 }),
        fc.constantFrom(Uint8Array.from([0xc3, 0x28]), Uint8Array.from([0xff, 0xfe, 0xfd])),
        fc.integer({ min: 0, max: 6_000 }).map((code) => Uint8Array.from([code >> 8, code & 255])),
        fc
          .oneof(
            fc.record({
              type: fc.constant('decision'),
              approvalId: realId(approvals),
              approved: fc.boolean(),
              payload: value,
            }),
            fc.record({
              type: fc.constant('send'),
              requestId: fc.string(),
              id: fc.string(),
              messages: fc.array(chatMessage, { maxLength: 2 }),
              body: chatBody,
            }),
            value,
          )
          .map((json) => new TextEncoder().encode(jsonText(json))),
      ),
      announced: fc.option(fc.constantFrom(50_000_000, 2 ** 32, 1_048_577, 130), {
        nil: undefined,
      }),
    });
    const bystander = await rawWebSocket(server.port, '/api/chat/ws');
    await fc.assert(
      fc.asyncProperty(frame, async (raw) => {
        const { socket, closed } = await rawWebSocket(server.port, '/api/chat/ws');
        const received: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => received.push(chunk));
        socket.write(encodeFrame(raw));
        // A client's close and end of stream finish whatever the frame started (a frame
        // that announced more bytes than it sent included); the wait is a bound.
        socket.end(encodeFrame({ ...CLIENT_CLOSE, payload: Uint8Array.from([3, 232]) }));
        const ended = await Promise.race([
          closed.then(() => true),
          new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000)),
        ]);
        socket.destroy();
        expect(ended).toBe(true);
        const code = serverCloseCode(Buffer.concat(received));
        if (code !== undefined) expect(PROPER_CLOSE_CODES).toContain(code);
      }),
      { numRuns: 150 },
    );
    // Another client's connection was never touched.
    expect(bystander.socket.destroyed).toBe(false);
    bystander.socket.destroy();
    expect(await send('GET', '/healthz')).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });

  it('keeps nothing of a flood it refused: memory comes back near where it started', async () => {
    const before = await residentBytes();
    const big = 'x'.repeat(900 * 1024);
    const { socket, closed } = await rawWebSocket(server.port, '/api/chat/ws', 'flood');
    for (let i = 0; i < 300; i++) {
      const send = {
        type: 'send',
        requestId: `r${i}`,
        id: 'chat',
        trigger: 'submit-message',
        messages: [{ id: `m${i}`, role: 'user', parts: [{ type: 'text', text: big }] }],
        headers: {},
        body: { app: 'payments', userId: 'flood' },
      };
      socket.write(textFrame(JSON.stringify(send)));
    }
    socket.write(
      encodeFrame({
        fin: true,
        rsv: 0,
        opcode: 8,
        masked: true,
        payload: Uint8Array.from([3, 232]),
      }),
    );
    await closed;
    for (let i = 0; i < 20; i++) {
      await send('POST', '/api/agent/start', JSON.stringify({ query: big, user_id: 'flood' }));
    }
    // About 270 MB went in, more than the store would keep of it; what stays is far less.
    await expect
      .poll(residentBytes, { timeout: 20_000, interval: 500 })
      .toBeLessThan(before + 64 * 1024 * 1024);
    expect(await send('GET', '/healthz')).toBe(200);
  });
});
