import { once } from 'node:events';
import type { UIMessageChunk } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { exampleConfig } from './support/example-apps.js';
import { signedInAs, TESTER_ROLES } from './support/json-client.js';
import { userMessage } from './support/ui-stream.js';

// The chat socket's limits: streams per socket, sockets per principal, run limits on
// frames, pings and the idle time. Time is a manual clock (starting now, so the
// streams' own approval timeouts stay far off): pings and idle checks happen when the
// test moves it.

type Frame = Record<string, unknown> & { type: string; requestId?: string };

const servers: RunningServer[] = [];
const peers: Peer[] = [];

afterEach(async () => {
  for (const peer of peers.splice(0)) peer.socket.terminate();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(clock: ManualClock, ...flags: string[]): Promise<RunningServer> {
  const server = await startServer(exampleConfig('--approval-timeout', '600', ...flags), { clock });
  servers.push(server);
  return server;
}

const socketUrl = (server: RunningServer) => `ws://127.0.0.1:${server.port}/api/chat/ws`;

/** A chat socket client that keeps every frame it receives. */
class Peer {
  readonly frames: Frame[] = [];
  private probes = 0;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => this.frames.push(JSON.parse(String(data))));
  }

  /** Resolves the first frame, received or to come, that matches `predicate`. */
  next(predicate: (frame: Frame) => boolean): Promise<Frame> {
    const found = this.frames.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      const onMessage = () => {
        const frame = this.frames.find(predicate);
        if (!frame) return;
        this.socket.off('message', onMessage);
        resolve(frame);
      };
      this.socket.on('message', onMessage);
    });
  }

  /** Asks for a stream: a payments run, which waits at its approval. */
  send(requestId: string): void {
    this.socket.send(
      JSON.stringify({
        type: 'send',
        requestId,
        id: `chat-${requestId}`,
        messages: [userMessage('Send $200 to Jiro')],
        trigger: 'submit-message',
        headers: {},
        body: { app: 'payments' },
      }),
    );
  }

  /** The approval request the stream `requestId` waits at. */
  async waiting(requestId: string): Promise<string> {
    const frame = await this.next(
      (f) =>
        f.requestId === requestId &&
        (f.chunk as UIMessageChunk | undefined)?.type === 'tool-approval-request',
    );
    return (frame.chunk as { approvalId: string }).approvalId;
  }

  /** A frame the server answers in order: every frame sent before it has arrived. */
  async roundTrip(): Promise<void> {
    const requestId = `probe-${++this.probes}`;
    this.socket.send(
      JSON.stringify({ type: 'resume', requestId, id: 'probe', headers: {}, body: {} }),
    );
    await this.next((f) => f.requestId === requestId && f.type === 'no-active');
  }

  /** The code and reason the server closes the socket with. */
  async closed(): Promise<{ code: number; reason: string }> {
    if (this.socket.readyState === WebSocket.CLOSED) throw new Error('closed already');
    const [code, reason] = (await once(this.socket, 'close')) as [number, Buffer];
    return { code, reason: String(reason) };
  }
}

/** Opens a socket as `user`, or resolves the HTTP answer that refused the handshake. */
function connect(
  server: RunningServer,
  headers: Record<string, string>,
  options: WebSocket.ClientOptions = {},
): Promise<Peer | { status: number; retryAfter?: string; error: Record<string, unknown> }> {
  const socket = new WebSocket(socketUrl(server), { headers, ...options });
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      const peer = new Peer(socket);
      peers.push(peer);
      resolve(peer);
    });
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          retryAfter: response.headers['retry-after'],
          error: JSON.parse(body).error,
        }),
      );
    });
    socket.once('error', reject);
  });
}

async function open(
  server: RunningServer,
  user: string,
  options: WebSocket.ClientOptions = {},
): Promise<Peer> {
  const opened = await connect(server, signedInAs(user, TESTER_ROLES), options);
  if (!(opened instanceof Peer)) throw new Error(`refused: ${JSON.stringify(opened)}`);
  return opened;
}

describe('streams per socket', () => {
  it('refuses one more stream than the socket may hold with TOO_MANY_STREAMS; the socket stays', async () => {
    const server = await serve(new ManualClock(Date.now()), '--streams-per-socket', '2');
    const ann = await open(server, 'ann');
    ann.send('r1');
    ann.send('r2');
    await Promise.all([ann.waiting('r1'), ann.waiting('r2')]);
    ann.send('r3');
    const refused = await ann.next((f) => f.requestId === 'r3');
    expect(refused).toMatchObject({ type: 'error' });
    expect(refused.errorText).toMatch(/^TOO_MANY_STREAMS: /);
    // An ended stream frees its place.
    ann.socket.send(JSON.stringify({ type: 'abort', requestId: 'r1' }));
    ann.send('r4');
    await ann.waiting('r4');
    expect(ann.frames.filter((f) => f.requestId === 'r3')).toHaveLength(1);
  });

  it('refuses a second stream under a requestId that is open, so reusing one escapes no cap', async () => {
    // Regression: a reused requestId replaced the open stream in the count, leaving it
    // running and never aborted.
    const server = await serve(new ManualClock(Date.now()), '--streams-per-socket', '2');
    const ann = await open(server, 'ann');
    ann.send('r1');
    await ann.waiting('r1');
    ann.send('r1');
    const refused = await ann.next((f) => f.requestId === 'r1' && f.type === 'error');
    expect(refused.errorText).toMatch(/^VALIDATION_FAILED: a stream with requestId r1 is open/);
    ann.send('r2');
    await ann.waiting('r2');
    ann.send('r3');
    const capped = await ann.next((f) => f.requestId === 'r3');
    expect(capped.errorText).toMatch(/^TOO_MANY_STREAMS: /);
  });
});

describe('sockets per principal', () => {
  it('refuses the handshake past the cap with 429 and Retry-After, before upgrading', async () => {
    const server = await serve(
      new ManualClock(Date.now()),
      '--sockets-per-principal',
      '3',
      '--socket-ping',
      '10',
    );
    const held = [await open(server, 'ann'), await open(server, 'ann'), await open(server, 'ann')];
    const refused = await connect(server, signedInAs('ann'));
    expect(refused).toMatchObject({
      status: 429,
      retryAfter: '10',
      error: { code: 'TOO_MANY_SOCKETS', max_sockets: 3, retry_after_seconds: 10 },
    });
    // Someone else's sockets are theirs; one of ann's closed makes room for another.
    await open(server, 'bob');
    held[0]?.socket.close();
    await expect
      .poll(async () => (await connect(server, signedInAs('ann'))) instanceof Peer)
      .toBe(true);
  });
});

describe('run limits on frames', () => {
  it('refuse a send with an error frame and a decision with decision-error; the socket stays', async () => {
    const server = await serve(new ManualClock(Date.now()), '--run-rate-limit', '2');
    const ann = await open(server, 'ann');
    ann.send('r1');
    ann.send('r2');
    const approvalId = await ann.waiting('r1');
    await ann.waiting('r2');
    ann.send('r3');
    const refused = await ann.next((f) => f.requestId === 'r3');
    expect(refused).toMatchObject({ type: 'error' });
    expect(refused.errorText).toMatch(/^RATE_LIMITED: /);
    ann.socket.send(JSON.stringify({ type: 'decision', approvalId, approved: true }));
    expect(await ann.next((f) => f.type.startsWith('decision-'))).toMatchObject({
      type: 'decision-error',
      approvalId,
      code: 'RATE_LIMITED',
      limit: 'runs',
      retry_after_seconds: expect.any(Number),
    });
    await ann.roundTrip();
    // Another principal decides; ann's stream carries the run to its end.
    const bob = await open(server, 'bob');
    bob.socket.send(JSON.stringify({ type: 'decision', approvalId, approved: true }));
    expect(await bob.next((f) => f.type.startsWith('decision-'))).toMatchObject({
      type: 'decision-result',
      status: 'completed',
    });
    await ann.next((f) => f.requestId === 'r1' && f.type === 'end');
  });

  it('count the handshake as a request: past the request limit it is refused 429', async () => {
    const server = await serve(new ManualClock(Date.now()), '--rate-limit', '2');
    await open(server, 'ann');
    await open(server, 'ann');
    const refused = await connect(server, signedInAs('ann'));
    expect(refused).toMatchObject({
      status: 429,
      retryAfter: expect.stringMatching(/^\d+$/),
      error: { code: 'RATE_LIMITED', limit: 'requests' },
    });
    await open(server, 'bob');
  });
});

describe('pings', () => {
  it('close a socket that leaves a ping unanswered with 1001; one that answers stays', async () => {
    const clock = new ManualClock(Date.now());
    const server = await serve(clock, '--socket-ping', '10');
    const silent = await open(server, 'ann', { autoPong: false });
    const answering = await open(server, 'ann');
    const pinged = Promise.all([once(silent.socket, 'ping'), once(answering.socket, 'ping')]);
    clock.advance(10_000);
    await pinged;
    // The answering client's pong went out before this frame, so it has arrived too.
    await answering.roundTrip();
    const closed = silent.closed();
    clock.advance(10_000);
    expect(await closed).toEqual({
      code: 1001,
      reason: 'PING_TIMEOUT: the last ping was not answered',
    });
    await answering.roundTrip();
    expect(answering.socket.readyState).toBe(WebSocket.OPEN);
  });
});

describe('the idle time', () => {
  it('closes a socket that sent nothing and had no stream open for it, with 1001', async () => {
    const clock = new ManualClock(Date.now());
    const server = await serve(clock, '--socket-ping', '0', '--socket-idle', '30');
    const [idle, talking, streaming] = [
      await open(server, 'ann'),
      await open(server, 'ann'),
      await open(server, 'ann'),
    ];
    streaming.send('r1');
    await streaming.waiting('r1');
    clock.advance(20_000);
    await talking.roundTrip();
    const idleClosed = idle.closed();
    clock.advance(10_000);
    expect(await idleClosed).toEqual({
      code: 1001,
      reason: 'IDLE_TIMEOUT: nothing sent and no stream open for 30 s',
    });
    // Ten seconds since it talked: it stays, and goes once it has been quiet long enough.
    const talkingClosed = talking.closed();
    clock.advance(30_000);
    expect((await talkingClosed).code).toBe(1001);
    // A stream open is use, however quiet; once it ends, the idle time counts.
    expect(streaming.socket.readyState).toBe(WebSocket.OPEN);
    streaming.socket.send(JSON.stringify({ type: 'abort', requestId: 'r1' }));
    await streaming.roundTrip();
    const streamingClosed = streaming.closed();
    clock.advance(30_000);
    expect((await streamingClosed).reason).toMatch(/^IDLE_TIMEOUT: /);
  });
});
