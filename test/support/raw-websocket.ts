import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/** One WebSocket frame, as a misbehaving client may write it. */
export interface RawFrame {
  fin: boolean;
  /** The three reserved bits, 0–7. */
  rsv: number;
  /** 0–15; only 0, 1, 2, 8, 9 and 10 are defined. */
  opcode: number;
  /** Clients must mask; a server must refuse an unmasked frame. */
  masked: boolean;
  payload: Uint8Array;
  /** The length the header claims, when it lies (e.g. 50 MB for a short payload). */
  announced?: number;
}

/** The bytes of `frame`. */
export function encodeFrame(frame: RawFrame): Buffer {
  const length = frame.announced ?? frame.payload.length;
  const head = [(frame.fin ? 0x80 : 0) | ((frame.rsv & 7) << 4) | (frame.opcode & 15)];
  const maskBit = frame.masked ? 0x80 : 0;
  const extended: number[] = [];
  if (length < 126) {
    head.push(maskBit | length);
  } else if (length < 65_536) {
    head.push(maskBit | 126);
    extended.push(length >> 8, length & 255);
  } else {
    head.push(maskBit | 127);
    const big = Buffer.alloc(8);
    big.writeBigUInt64BE(BigInt(length));
    extended.push(...big);
  }
  const mask = frame.masked ? randomBytes(4) : Buffer.alloc(0);
  const payload = Buffer.from(frame.payload);
  if (frame.masked) {
    for (let i = 0; i < payload.length; i++)
      payload[i] = (payload[i] as number) ^ (mask[i % 4] as number);
  }
  return Buffer.concat([Buffer.from(head), Buffer.from(extended), mask, payload]);
}

/** A text frame a well-behaved client would send. */
export function textFrame(text: string): Buffer {
  return encodeFrame({ fin: true, rsv: 0, opcode: 1, masked: true, payload: Buffer.from(text) });
}

/**
 * Test support: a TCP connection that has completed the WebSocket handshake on
 * `path`, signed in as `user` (the server's `dev` mode), so the test can write any
 * bytes as frames. `closed` resolves when the
 * server ends the connection.
 */
export async function rawWebSocket(
  port: number,
  path: string,
  user = 'tester',
): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const closed = new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
  });
  socket.on('error', () => {});
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `X-Holdpoint-User: ${user}\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  const [head] = (await once(socket, 'data')) as [Buffer];
  if (!head.toString().startsWith('HTTP/1.1 101')) {
    socket.destroy();
    throw new Error(`handshake refused: ${head.toString().split('\r\n')[0]}`);
  }
  return { socket, closed };
}
