import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, UNREACHABLE } from './api-error.js';
import { createHoldpointClient } from './holdpoint-client.js';

/** A `fetch` that records what it is asked and answers with `answer(url, init)`. */
function recordingFetch(answer: (url: string, init: RequestInit) => Response | Promise<Response>) {
  const calls: { url: string; init: RequestInit; headers: Record<string, string> }[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = String(input);
    calls.push({ url, init, headers: Object.fromEntries(new Headers(init.headers)) });
    return answer(url, init);
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, calls };
}

/** A stream the test writes inbox events into. */
function inboxStream() {
  let writer!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (s) => (writer = s) });
  return {
    response: new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    push: (pending: number) =>
      writer.enqueue(
        new TextEncoder().encode(
          `event: inbox\ndata: ${JSON.stringify({ pending, more: false, approvals: [] })}\n\n`,
        ),
      ),
    drop: () => writer.close(),
  };
}

afterEach(() => vi.useRealTimers());

describe('createHoldpointClient', () => {
  it('calls the server under its address with the headers given, a function read per call', async () => {
    let token = 'one';
    const { fetch, calls } = recordingFetch(() => Response.json({ approvals: [] }));
    const client = createHoldpointClient({
      url: 'https://approvals.example.com/hp',
      headers: () => ({ authorization: `Bearer ${token}` }),
      fetch,
    });
    await client.listApprovals({ userId: 'maria', limit: 10 });
    token = 'two';
    await client.decideApproval('a 1', { approved: false, reason: 'no' }, 'maria');
    expect(calls.map((c) => c.url)).toEqual([
      'https://approvals.example.com/hp/api/approvals?user_id=maria&limit=10',
      'https://approvals.example.com/hp/api/approvals/a%201',
    ]);
    expect(calls[0]?.headers).toEqual({ authorization: 'Bearer one' });
    expect(calls[0]?.init.credentials).toBe('same-origin');
    expect(calls[1]?.headers).toEqual({
      authorization: 'Bearer two',
      'content-type': 'application/json',
    });
    expect(JSON.parse(String(calls[1]?.init.body))).toEqual({
      approved: false,
      reason: 'no',
      user_id: 'maria',
    });
  });

  it('throws the server’s error with its code and details; SERVER_UNREACHABLE without a server', async () => {
    const refusal = { error: { code: 'ARGS_MISMATCH', message: 'changed', field: 'args_hash' } };
    const refusing = createHoldpointClient({
      fetch: recordingFetch(() => Response.json(refusal, { status: 409 })).fetch,
    });
    await expect(refusing.getApproval('a1')).rejects.toEqual(
      new ApiError('ARGS_MISMATCH', 'changed', 409, { field: 'args_hash' }),
    );
    const proxied = createHoldpointClient({
      fetch: recordingFetch(() => new Response('Bad Gateway', { status: 502 })).fetch,
    });
    await expect(proxied.whoAmI()).rejects.toMatchObject({ code: UNREACHABLE, status: 502 });
    const down = createHoldpointClient({
      fetch: recordingFetch(() => Promise.reject(new TypeError('fetch failed'))).fetch,
    });
    await expect(down.whoAmI()).rejects.toMatchObject({ code: UNREACHABLE });
  });

  it('follows the inbox, opening a dropped stream again after a second and a refused one after 30 s', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const streams = [inboxStream(), inboxStream()];
    let opened = 0;
    const { fetch, calls } = recordingFetch(() => {
      opened += 1;
      if (opened === 2) return Response.json({ error: { code: 'UNAUTHENTICATED' } }, { status: 401 });
      return (opened === 1 ? streams[0] : streams[1])?.response ?? Response.error();
    });
    const client = createHoldpointClient({ headers: { 'x-api-key': 'k' }, fetch });
    const seen: number[] = [];
    const controller = new AbortController();
    const watching = client.watchInbox((event) => seen.push(event.pending), controller.signal);

    await vi.waitFor(() => expect(opened).toBe(1));
    streams[0]?.push(1);
    streams[0]?.push(2);
    await vi.waitFor(() => expect(seen).toEqual([1, 2]));
    expect(calls[0]?.headers).toEqual({ accept: 'text/event-stream', 'x-api-key': 'k' });

    streams[0]?.drop();
    await vi.advanceTimersByTimeAsync(999);
    expect(opened).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(opened).toBe(2); // refused
    await vi.advanceTimersByTimeAsync(29_999);
    expect(opened).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(opened).toBe(3);
    streams[1]?.push(0);
    await vi.waitFor(() => expect(seen).toEqual([1, 2, 0]));

    controller.abort();
    await watching;
    expect(opened).toBe(3);
  });
});
