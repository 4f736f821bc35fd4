import type { WebSocket } from 'ws';
import type { SocketLimits } from './socket-limits.js';

/** Going away: the server closes a socket nobody uses or nobody answers on. */
const GOING_AWAY = 1001;

/**
 * Keeps one chat socket alive, or closes it: at each look (its endpoint's beat) it is
 * pinged; one that left the previous ping unanswered, or that sent nothing and had no
 * stream open for the idle time, is closed with 1001 and a reason naming why
 * (`PING_TIMEOUT`, `IDLE_TIMEOUT`). Pongs answer pings; they are not use.
 */
export class SocketHeartbeat {
  private lastUsed: number;
  private awaitingPong = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly limits: SocketLimits,
  ) {
    this.lastUsed = limits.clock.now();
    socket.on('pong', () => {
      this.awaitingPong = false;
    });
  }

  /** The client sent a frame, or a stream ended: idle time counts from now. */
  used(): void {
    this.lastUsed = this.limits.clock.now();
  }

  /** One look at the socket, with `streams` of its streams open. */
  beat(streams: number): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    const { pingSeconds, idleSeconds } = this.limits.settings;
    if (pingSeconds && this.awaitingPong) {
      this.socket.close(GOING_AWAY, 'PING_TIMEOUT: the last ping was not answered');
      return;
    }
    const idleMs = this.limits.clock.now() - this.lastUsed;
    if (idleSeconds && streams === 0 && idleMs >= idleSeconds * 1000) {
      this.socket.close(
        GOING_AWAY,
        `IDLE_TIMEOUT: nothing sent and no stream open for ${idleSeconds} s`,
      );
      return;
    }
    if (pingSeconds) {
      this.awaitingPong = true;
      this.socket.ping();
    }
  }
}
