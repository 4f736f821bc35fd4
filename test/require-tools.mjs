#!/usr/bin/env node
// Run by `npm test` before vitest: the suite needs redis-server (tests start their own),
// a Redis at REDIS_URL, PostgreSQL's server binaries (tests start their own cluster to
// kill it) and a PostgreSQL at TEST_POSTGRES_URL (tests create and drop databases of their
// own), Chromium for the browser tests and util-linux `script` (a pseudo-terminal for the
// CLI's). Without them every test
// would fail with its own stack trace; this says in one line what to install.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const postgresUrl = new URL(
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
);
const postgresBin = process.env.TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

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
if (!existsSync(`${postgresBin}/initdb`)) packages.push('postgresql');
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
if (!(await reachable(postgresUrl.hostname, Number(postgresUrl.port || 5432)))) {
  process.stderr.write(
    `npm test needs a PostgreSQL at ${postgresUrl.host} that lets ${postgresUrl.username || 'postgres'} ` +
      'create databases (or set TEST_POSTGRES_URL)\n',
  );
  process.exit(1);
}
