#!/usr/bin/env node
// Run by `npm test` before vitest: the suite needs redis-server (tests start their own),
// a Redis at REDIS_URL, Chromium for the browser tests and util-linux `script` (a
// pseudo-terminal for the CLI's). Without them every test
// would fail with its own stack trace; this says in one line what to install.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

/** Whether a TCP connection to `host:port` opens within a second. */
function reachable(host, port) {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1000 });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

const packages = [];
if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error)
  packages.push('redis-server');
if (!existsSync(chromium)) packages.push('chromium');
if (spawnSync('script', ['--version'], { stdio: 'ignore' }).error) packages.push('bsdutils');
if (packages.length > 0) {
  const what = packages.join(' and ');
  process.stderr.write(`npm test needs ${what}: apt-get install -y ${packages.join(' ')}\n`);
  process.exit(1);
}
const host = redisUrl.hostname.replace(/^\[|\]$/g, '');
if (!(await reachable(host, Number(redisUrl.port || 6379)))) {
  process.stderr.write(
    `npm test needs a Redis at ${redisUrl.protocol}//${redisUrl.host} (or set REDIS_URL): start one with ` +
      `redis-server --daemonize yes --save '' --appendonly no\n`,
  );
  process.exit(1);
}
