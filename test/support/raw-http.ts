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
