import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./require-tools.mjs', import.meta.url));

/** Runs the check the way `npm test` does, with `env` over the real environment. */
function check(env: Record<string, string>) {
  const run = spawnSync(process.execPath, [SCRIPT], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { status: run.status, lines: run.stderr.trim().split('\n').filter(Boolean) };
}

describe('npm test on a machine missing what the suite needs', () => {
  it('says in one line what to install, and stops', () => {
    const missing = check({ PATH: '/nonexistent', CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(missing.status).toBe(1);
    expect(missing.lines).toEqual([
      'npm test needs redis-server and chromium and bsdutils: apt-get install -y redis-server chromium bsdutils',
    ]);
    expect(check({ CHROMIUM_PATH: '/nonexistent/chromium' }).lines).toEqual([
      'npm test needs chromium: apt-get install -y chromium',
    ]);
    expect(check({ TEST_POSTGRES_BIN: '/nonexistent/bin' }).lines).toEqual([
      'npm test needs postgresql: apt-get install -y postgresql',
    ]);
  });

  it('says so when no Redis or PostgreSQL answers, and passes when everything is there', () => {
    const noRedis = check({ REDIS_URL: 'redis://127.0.0.1:1' });
    expect(noRedis.status).toBe(1);
    expect(noRedis.lines).toHaveLength(1);
    expect(noRedis.lines[0]).toMatch(/^npm test needs a Redis at redis:\/\/127\.0\.0\.1:1/);
    const noPostgres = check({ TEST_POSTGRES_URL: 'postgres://postgres@127.0.0.1:1/postgres' });
    expect(noPostgres.status).toBe(1);
    expect(noPostgres.lines).toEqual([
      'npm test needs a PostgreSQL at 127.0.0.1:1 that lets postgres create databases (or set TEST_POSTGRES_URL)',
    ]);
    expect(check({})).toEqual({ status: 0, lines: [] });
  });
});
