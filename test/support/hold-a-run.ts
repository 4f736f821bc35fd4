// A process that starts a run and keeps it working (its tool never returns), for
// tests that kill a process in the middle of a run. Prints the session id once the
// run is inside its tool. Arguments: Redis URL, key prefix, lease seconds.
import { LogLevel, setLogLevel } from '@google/adk';
import { pino } from 'pino';
import { optionSettingValues } from '../../src/core/settings/setting-options.js';
import { HoldpointRuntime } from '../../src/runtime/holdpoint-runtime.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { HeldCalls, heldToolApp } from './held-tool-app.js';
import { ann } from './principals.js';

const [url = '', keyPrefix = '', leaseSeconds = '30'] = process.argv.slice(2);
// Stdout carries the one line the test reads; ADK's console logger says nothing on it.
setLogLevel(LogLevel.ERROR);
const store = await RedisStore.connect({ url, keyPrefix, sessionTtlSeconds: 600 });
const calls = new HeldCalls();
const app = heldToolApp(calls);
const runtime = new HoldpointRuntime({
  store,
  apps: new Map([[app.name, app]]),
  defaultApp: app.name,
  settings: optionSettingValues({ pauseTtlSeconds: 3600, runLeaseSeconds: Number(leaseSeconds) }),
  retentionSeconds: 600,
  logger: pino({ level: 'silent' }),
});
void runtime.operations.startRun({ query: 'work' }, ann);
const call = await calls.next();
process.stdout.write(`${JSON.stringify({ sessionId: call.sessionId })}\n`);
