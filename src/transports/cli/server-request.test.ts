import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOperation, type HttpCredentials } from './server-request.js';

/** What the fake server was sent, in order. */
const received: {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  body: string;
}[] = [];
let server: Server;
let baseUrl: string;
/** Nothing listens on port 1: a request that were sent would fail to connect. */
const NOWHERE = 'http://127.0.0.1:1';
const ANN: HttpCredentials = { user: 'ann', roles: ['approver'] };

// A server that records each request and answers `{"ok":true}` (`/web/…`: a page, `/ndjson/…`: NDJSON).
beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      received.push({ method: request.method, url: request.url, headers: request.headers, body });
      // Under `/web`: what a web server that is not Holdpoint's API answers, a page.
      if (request.url?.startsWith('/web/')) {
        response.setHeader('content-type', 'text/html');
        response.end('<!doctype html><html></html>');
        return;
      }
      // Under `/ndjson`: an operation's other answer, as it declares it.
      if (request.url?.startsWith('/ndjson/')) {
        response.setHeader('content-type', 'application/x-ndjson');
        response.end('{"a":1}\n');
        return;
      }
      response.setHeader('content-type', 'application/json');
      if (request.url === '/api/sessions/inherited-code') {
        // A code that is no code of ours, though every object answers to its name.
        response.statusCode = 400;
        response.end(JSON.stringify({ error: { code: 'toString', message: 'odd' } }));
        return;
      }
      response.end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('callOperation: a request from the operation’s definition', () => {
  it('sends its method to its path, each parameter encoded, the query and the body as given', async () => {
    const answer = await callOperation(baseUrl, ANN, 'decideApproval', {
      params: { approvalId: 'apr 1/2' },
      body: { approved: true, reason: 'fine' },
    });
    expect(answer).toEqual({ ok: true });
    const decided = received.at(-1);
    expect(decided).toMatchObject({
      method: 'POST',
      url: '/api/approvals/apr%201%2F2',
      body: '{"approved":true,"reason":"fine"}',
    });
    expect(decided?.headers).toMatchObject({
      'x-holdpoint-user': 'ann',
      'x-holdpoint-roles': 'approver',
      'content-type': 'application/json',
    });

    await callOperation(baseUrl, { token: 'hp_t' }, 'listGrants', {
      query: { user_id: 'bo b', limit: '5' },
    });
    expect(received.at(-1)).toMatchObject({
      method: 'GET',
      url: '/api/grants?user_id=bo+b&limit=5',
      body: '',
    });
    expect(received.at(-1)?.headers.authorization).toBe('Bearer hp_t');
  });

  it('takes a refusal whose code is not one of ours as INTERNAL, even a name every object has', async () => {
    const refused = callOperation(baseUrl, ANN, 'getSession', { params: { id: 'inherited-code' } });
    await expect(refused).rejects.toMatchObject({ code: 'INTERNAL', message: 'odd' });
  });

  it('refuses, before sending, a parameter missing or unknown to the path', async () => {
    await expect(callOperation(NOWHERE, ANN, 'revokeGrant')).rejects.toThrow(
      'revokeGrant needs the path parameter grantId (its path: /api/grants/:grantId).',
    );
    await expect(
      callOperation(NOWHERE, ANN, 'revokeGrant', { params: { grantId: 'g', id: 'x' } }),
    ).rejects.toThrow('revokeGrant has no path parameter id (its path: /api/grants/:grantId).');
  });

  it('refuses, before sending, a path parameter that is a dot segment: it would climb the path', async () => {
    // `..` is no character encodeURIComponent changes, and a URL drops `..`, `.` (and their
    // %2e spellings) as segments: /api/grants/.. would be sent as /api/.
    for (const grantId of ['..', '.']) {
      await expect(
        callOperation(NOWHERE, ANN, 'revokeGrant', { params: { grantId } }),
      ).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        message: `revokeGrant path parameter grantId cannot be ${grantId} (not sent).`,
      });
    }
    // Anything else stays one segment of the operation's own path.
    await callOperation(baseUrl, ANN, 'revokeGrant', { params: { grantId: '../../x' } });
    expect(received.at(-1)?.url).toBe('/api/grants/..%2F..%2Fx');
    await callOperation(baseUrl, ANN, 'revokeGrant', { params: { grantId: '%2e%2e' } });
    expect(received.at(-1)?.url).toBe('/api/grants/%252e%252e');
  });

  it('refuses, before sending, a body or query its wire schema refuses, naming the field', async () => {
    await expect(
      callOperation(NOWHERE, ANN, 'decideApproval', {
        params: { approvalId: 'a' },
        body: { approved: 'yes' },
      }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^decideApproval body\.approved: .* \(not sent\)$/),
    });
    // A body it needs and was not given: the first field it lacks.
    await expect(callOperation(NOWHERE, ANN, 'startRun')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^startRun body\.query: /),
    });
    await expect(
      callOperation(NOWHERE, ANN, 'listGrants', { query: { limit: 'many' } }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/^listGrants query\.limit: /) });
    await expect(
      callOperation(NOWHERE, ANN, 'listGrants', { query: { colour: 'red' } }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(callOperation(NOWHERE, ANN, 'getMe', { body: {} })).rejects.toThrow(
      'getMe takes no body.',
    );
    await expect(callOperation(NOWHERE, ANN, 'getMe', { query: { a: 'b' } })).rejects.toThrow(
      'getMe takes no query.',
    );
  });

  it('refuses a server address that carries credentials, printing neither them nor the address', async () => {
    // fetch would refuse it too, with a message that repeats the whole address.
    const refused = await callOperation('http://ann:s3cret@127.0.0.1:1', ANN, 'getMe').catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(String((refused as Error).message)).not.toMatch(/s3cret|ann:/);
  });

  it('answers text only in the form the operation declares; a page is not an answer', async () => {
    await expect(
      callOperation(`${baseUrl}/ndjson`, ANN, 'readAudit', {
        query: { session_id: 's1', format: 'ndjson' },
      }),
    ).resolves.toBe('{"a":1}\n');
    // A --url that is some other web server (or Holdpoint's mounted elsewhere): its page
    // is no answer of getMe's.
    await expect(callOperation(`${baseUrl}/web`, ANN, 'getMe')).rejects.toThrow(
      `The server at ${baseUrl}/web answered GET /api/me with text/html, not Holdpoint's JSON: is it a Holdpoint server's address?`,
    );
  });

  it('refuses an operation that answers only with a stream', async () => {
    await expect(callOperation(NOWHERE, ANN, 'approvalEvents')).rejects.toThrow(
      /^approvalEvents answers only with a stream \(text\/event-stream\), not JSON/,
    );
  });

  it('is typed by the operations’ names', async () => {
    // @ts-expect-error: no operation is named so
    await expect(callOperation(NOWHERE, ANN, 'decideApprovals')).rejects.toThrow(
      'No operation is named decideApprovals.',
    );
  });
});
