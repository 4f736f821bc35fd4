import { z } from 'zod';
import { setting } from './setting.js';

/** A limit: a count, or 0 for none. */
const limitCount = z.number().int().min(0);
/** A time in seconds, or 0 for never. */
const limitSeconds = z.number().min(0).finite();

/** Per-principal rates and chat socket bounds. */
export const LIMIT_SETTINGS = {
  requestsPerMinute: setting({
    schema: limitCount,
    default: 3000,
    flag: 'rate-limit',
    env: 'HOLDPOINT_RATE_LIMIT',
    placeholder: 'COUNT',
    doc: 'API requests (and chat socket handshakes) per principal per minute; past it, `429 RATE_LIMITED` with `Retry-After`. Counted in the store, so instances sharing a Redis share it. `0` turns it off',
  }),
  runsPerMinute: setting({
    schema: limitCount,
    default: 1200,
    flag: 'run-rate-limit',
    env: 'HOLDPOINT_RUN_RATE_LIMIT',
    placeholder: 'COUNT',
    doc: "of those, requests that start or resume runs (start, resume, decisions, `runs/:id/resume`, `POST /api/chat`, the chat socket's `send` and `decision` frames) per principal per minute; `0` turns it off",
  }),
  streamsPerSocket: setting({
    schema: limitCount,
    default: 8,
    flag: 'streams-per-socket',
    env: 'HOLDPOINT_STREAMS_PER_SOCKET',
    placeholder: 'COUNT',
    doc: 'streams open at once on one chat socket; one more `send` gets an `error` frame `TOO_MANY_STREAMS`; `0` turns it off',
  }),
  socketsPerPrincipal: setting({
    schema: limitCount,
    default: 16,
    flag: 'sockets-per-principal',
    env: 'HOLDPOINT_SOCKETS_PER_PRINCIPAL',
    placeholder: 'COUNT',
    doc: 'chat sockets open at once per principal on this process; the next handshake gets `429 TOO_MANY_SOCKETS`; `0` turns it off',
  }),
  socketPingSeconds: setting({
    schema: limitSeconds,
    default: 30,
    flag: 'socket-ping',
    env: 'HOLDPOINT_SOCKET_PING_SECONDS',
    placeholder: 'SECONDS',
    doc: 'how often every chat socket is pinged; one that leaves a ping unanswered is closed (`1001`); `0`: no pings',
  }),
  socketIdleSeconds: setting({
    schema: limitSeconds,
    default: 300,
    flag: 'socket-idle',
    env: 'HOLDPOINT_SOCKET_IDLE_SECONDS',
    placeholder: 'SECONDS',
    doc: 'a chat socket that sends nothing and has no stream open this long is closed (`1001`), noticed at the next ping; `0`: never',
  }),
};
