import type { Clock } from '../../../core/clock.js';
import { HoldpointError } from '../../../core/errors.js';
import type { Principal } from '../../../core/principal.js';

/** What chat sockets may hold, and how they are kept alive; `false` where a limit is off. */
export interface SocketLimitSettings {
  streamsPerSocket: number | false;
  socketsPerPrincipal: number | false;
  pingSeconds: number | false;
  idleSeconds: number | false;
}

/** Without pings or an idle time, how long a refused handshake is told to wait. */
const FALLBACK_RETRY_SECONDS = 60;

/**
 * The chat sockets' limits in one Holdpoint, with the time they are kept by, and the
 * count of each principal's open sockets: one per process, shared by every endpoint
 * the Holdpoint attaches.
 */
export class SocketLimits {
  /** Principal id → sockets open; a principal with none has no entry. */
  private readonly open = new Map<string, number>();

  constructor(
    readonly settings: SocketLimitSettings,
    readonly clock: Clock,
  ) {}

  /**
   * How often an endpoint looks at its sockets: at each ping, or with pings off at
   * each idle time; undefined when neither is on. An idle socket is closed at the first
   * look after its idle time passed.
   */
  get beatMs(): number | undefined {
    const { pingSeconds, idleSeconds } = this.settings;
    const seconds = pingSeconds || idleSeconds;
    return seconds ? seconds * 1000 : undefined;
  }

  /**
   * Holds one socket of `principal`, or throws TOO_MANY_SOCKETS when it has as many
   * open as it may. Returns what frees it again, once however often it is called.
   */
  admit(principal: Principal): () => void {
    const max = this.settings.socketsPerPrincipal;
    const held = this.open.get(principal.id) ?? 0;
    if (max && held >= max) {
      // A socket whose client went away is found at the next look (an unanswered ping).
      const retryAfter = Math.ceil((this.beatMs ?? FALLBACK_RETRY_SECONDS * 1000) / 1000);
      throw new HoldpointError(
        'TOO_MANY_SOCKETS',
        `${principal.id} has ${held} chat sockets open, the most one may; close one first.`,
        { max_sockets: max, retry_after_seconds: retryAfter },
      );
    }
    this.open.set(principal.id, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(principal.id) ?? 1) - 1;
      if (left > 0) this.open.set(principal.id, left);
      else this.open.delete(principal.id);
    };
  }

  /** Throws TOO_MANY_STREAMS when a socket with `open` streams may not open another. */
  admitStream(open: number): void {
    const max = this.settings.streamsPerSocket;
    if (max && open >= max) {
      throw new HoldpointError(
        'TOO_MANY_STREAMS',
        `This socket has ${open} streams open, the most it may; wait for one to end or abort one.`,
        { max_streams: max },
      );
    }
  }
}
