import { z } from 'zod';
import { setting } from './setting.js';

const text = z.string().min(1);

/** How the server listens, what it serves, how it logs. */
export const SERVING_SETTINGS = {
  port: setting({
    schema: z.number().int().min(0).max(65535),
    default: 3000,
    flag: 'port',
    env: 'PORT',
    placeholder: 'PORT',
    doc: 'HTTP port',
  }),
  host: setting({
    schema: text,
    default: '127.0.0.1',
    flag: 'host',
    env: 'HOST',
    placeholder: 'ADDRESS',
    doc: 'interface to listen on (`0.0.0.0` for all)',
  }),
  apps: setting({
    schema: z.array(text),
    default: [],
    flag: 'app',
    env: 'HOLDPOINT_APPS',
    multiple: true,
    placeholder: 'MODULE',
    doc: 'app modules to serve (repeatable); each default-exports `defineApp(...)`. In the config file, apps themselves also go here',
    defaultDoc: "the config file's",
  }),
  config: setting({
    schema: text,
    flag: 'config',
    env: 'HOLDPOINT_CONFIG',
    placeholder: 'FILE',
    doc: 'the config file: `apps` and any setting by its long name (the first column)',
    defaultDoc: '`holdpoint.config.{ts,mts,js,mjs}` in the working directory',
  }),
  model: setting({
    schema: text,
    option: true,
    flag: 'model',
    env: 'HOLDPOINT_MODEL',
    placeholder: 'MODEL',
    doc: 'the model setting handed to apps that build their agent from it (the examples do)',
    defaultDoc:
      '`rules`; for the command, `gemini-2.5-flash` when `GEMINI_API_KEY` or `GOOGLE_API_KEY` is set',
  }),
  logLevel: setting({
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    flag: 'log-level',
    env: 'LOG_LEVEL',
    placeholder: 'LEVEL',
    doc: 'pino level (`silent` to mute)',
  }),
  logFormat: setting({
    schema: z.enum(['auto', 'lines', 'json']),
    default: 'auto',
    flag: 'log-format',
    env: 'HOLDPOINT_LOG_FORMAT',
    placeholder: 'auto|lines|json',
    doc: "`lines`: one readable line per event (time, level, message, its fields); `json`: pino's JSON, one object per line, for a log collector; `auto`: lines on a terminal, JSON otherwise",
  }),
};
