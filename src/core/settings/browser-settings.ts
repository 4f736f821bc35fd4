import { z } from 'zod';
import { hostName } from '../host-names.js';
import { webOrigin } from '../origins.js';
import { setting } from './setting.js';

/** Which pages and host names the server answers. */
export const BROWSER_SETTINGS = {
  allowedOrigins: setting({
    schema: z.array(webOrigin),
    default: [],
    flag: 'allowed-origin',
    env: 'HOLDPOINT_ALLOWED_ORIGINS',
    multiple: true,
    placeholder: 'ORIGIN',
    doc: "origins besides the server's own (`https://app.example.com`) whose pages may send state-changing requests and open the chat WebSocket (repeatable); other pages get `403 ORIGIN_NOT_ALLOWED`",
    defaultDoc: 'none',
  }),
  allowedHosts: setting({
    schema: z.array(hostName),
    default: [],
    flag: 'allowed-host',
    env: 'HOLDPOINT_ALLOWED_HOSTS',
    multiple: true,
    placeholder: 'HOST',
    doc: "host names (no port) requests may name in `Host`, e.g. a reverse proxy's (repeatable). Listening on loopback, `localhost`, `127.0.0.1` and `[::1]` are always allowed and any other name gets `403 HOST_NOT_ALLOWED` (DNS rebinding); listening elsewhere, any name is allowed unless some are given",
    defaultDoc: 'none',
  }),
  corsOrigins: setting({
    schema: z.array(webOrigin),
    default: [],
    flag: 'cors-origin',
    env: 'HOLDPOINT_CORS_ORIGINS',
    multiple: true,
    placeholder: 'ORIGIN',
    doc: 'origins that get CORS answers (preflights, readable responses) and are allowed as above (repeatable); without one, CORS is off',
    defaultDoc: 'none',
  }),
};
