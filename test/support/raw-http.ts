import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

/** An answer read whole: status, headers and the body as text. */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Who raw requests sign in as (the server's `dev` mode), unless their headers say otherwise. */
const SIGNED_IN = { 'x-holdpoint-user': 'tester' };

/**
 * Test support: one request with the headers given (Host and Origin included, which
 * fetch would not let a test choose), signed in as a tester unless they name someone
 * else, on a connection of its own.
 */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { ...SIGNED_IN, ...headers },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Test support: a POST that announces a body of `length` bytes and waits for the answer
 * before sending any of it. A server refusing the size answers at once and closes; had
 * the body been on its way, that close would reset the connection and could lose the answer.
 */
export function announceBody(
  port: number,
  path: string,
  length: number,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: {
          ...SIGNED_IN,
          'content-type': 'application/json',
          ...headers,
          'content-length': String(length),
        },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString(),
          });
          req.destroy();
        });
      },
    );
    req.on('error', reject);
    req.flushHeaders();
  });
}

/**
 * Test support: a WebSocket handshake on `path` with the headers given (signed in as a
 * tester unless they say otherwise); answers the status line the server sent (101 when
 * it upgraded) and what followed it.
 */
export async function upgradeAnswer(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await once(socket, 'connect');
  const lines = {
    Host: `127.0.0.1:${port}`,
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
    'Sec-WebSocket-Version': '13',
    ...SIGNED_IN,
    ...headers,
  };
  socket.write(
    `GET ${path} HTTP/1.1\r\n${Object.entries(lines)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')}\r\n`,
  );
  const [head] = (await once(socket, 'data')) as [Buffer];
  socket.destroy();
  const text = head.toString();
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text };
}

/** A keep-alive connection that sends requests one after another and reads their answers. */
export interface KeepAliveConnection {
  /**
   * Sends one request (signed in as a tester unless its headers say otherwise) and reads
   * its answer; rejects when the connection closes or resets before the whole answer.
   */
  send(
    method: string,
    path: string,
    headers?: Record<string, string>,
    body?: string | Buffer,
  ): Promise<RawAnswer>;
  close(): void;
}

/**
 * Test support: one TCP connection to the server, requests sent on it by hand (with
 * `Connection: keep-alive`), as a pooling proxy reuses a connection for the next request.
 */
export async function keepAliveConnection(port: number): Promise<KeepAliveConnection> {
  const socket = connect(port, '127.0.0.1');
  let received = Buffer.alloc(0);
  let ended: Error | undefined;
  let wake = () => {};
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    wake();
  });
  socket.on('error', (error) => {
    ended ??= error;
    wake();
  });
  socket.on('close', () => {
    ended ??= new Error('the server closed the connection');
    wake();
  });
  await once(socket, 'connect');

  /** The first whole answer in what was received (Content-Length bodies), if there is one. */
  const takeAnswer = (): RawAnswer | undefined => {
    const headEnd = received.indexOf('\r\n\r\n');
    if (headEnd < 0) return undefined;
    const [statusLine = '', ...lines] = received.subarray(0, headEnd).toString().split('\r\n');
    const headers: IncomingHttpHeaders = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const bodyEnd = headEnd + 4 + Number(headers['content-length'] ?? 0);
    if (received.length < bodyEnd) return undefined;
    const body = received.subarray(headEnd + 4, bodyEnd).toString();
    received = received.subarray(bodyEnd);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  };

  return {
    async send(method, path, headers = {}, body) {
      const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
      const lines = {
        Host: `127.0.0.1:${port}`,
        Connection: 'keep-alive',
        ...SIGNED_IN,
        ...headers,
        // A body sent in chunks (its headers say so, and it comes encoded) has no length.
        ...(payload.length > 0 && !('transfer-encoding' in headers)
          ? { 'Content-Length': String(payload.length) }
          : {}),
      };
      socket.write(
        `${method} ${path} HTTP/1.1\r\n${Object.entries(lines)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('')}\r\n`,
      );
      if (payload.length > 0) socket.write(payload);
      for (;;) {
        const answer = takeAnswer();
        if (answer) return answer;
        if (ended) throw ended;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    close: () => socket.destroy(),
  };
}
