import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisScratch } from '../src/store/redis/redis-scratch.test-support.js';

// Packing and installing into a new project takes a while on a 2-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 600_000 });

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/package-consumer', import.meta.url));
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');

/** What the consumer installs beside Holdpoint: ADK (its peer), its own server libraries. */
const CONSUMER_DEPENDENCIES = [
  '@google/adk@2.0.0',
  'zod@4.6.7',
  'hono@4.13.19',
  '@hono/node-server@2.1.8',
  'express@5.3.0',
];

let project: string;
let tarball: string;

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs one of the consumer's scripts with plain Node and parses the JSON it prints. */
function run(script: string, env: NodeJS.ProcessEnv = {}): Record<string, unknown> {
  const output = execFileSync(process.execPath, [script], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  return JSON.parse(output.trim().split('\n').at(-1) ?? '{}');
}

/**
 * Type-checks `file` in the project with skipLibCheck off (and `extra` options): the
 * file's own code and Holdpoint's declarations hold. Other packages' declarations answer
 * for themselves (ADK's name optional modules it does not install: express,
 * openapi-types, the MCP SDK).
 */
function expectOwnDeclarationsHold(file: string, extra: string[]): void {
  const args = ['--noEmit', '--strict', '--skipLibCheck', 'false', '--module', 'nodenext'];
  let output = '';
  try {
    execFileSync(TSC, [...args, ...extra, file], { cwd: project, encoding: 'utf8' });
  } catch (error) {
    output = String((error as { stdout?: unknown }).stdout ?? '');
    // It failed by type-checking, not by not running.
    expect(output).toMatch(/error TS\d+/);
  }
  const errors = output.split('\n').filter((line) => /error TS\d+/.test(line));
  expect(errors.filter((line) => !line.startsWith('node_modules/'))).toEqual([]);
  expect(errors.filter((line) => line.startsWith('node_modules/holdpoint/'))).toEqual([]);
}

// `npm test` builds dist/ and web/dist/ first; the tarball is what `npm publish` would send.
beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'holdpoint-consumer-'));
  const packed = npm(['pack', '--ignore-scripts', '--pack-destination', project], ROOT);
  tarball = join(project, packed.trim().split('\n').at(-1) ?? '');
  cpSync(FIXTURE, project, { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  npm(
    ['install', tarball, ...CONSUMER_DEPENDENCIES, '--prefer-offline', '--no-audit', '--no-fund'],
    project,
  );
});
afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the installed package', () => {
  it('ships compiled JavaScript, type declarations and the web UI, not the sources', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n');
    expect(files).toEqual(
      expect.arrayContaining([
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/dist/react/index.js',
        'package/dist/react/index.d.ts',
        'package/react/styles.css',
        'package/dist/bin/holdpoint.js',
        'package/bin/holdpoint.js',
        'package/web/dist/index.html',
        'package/LICENSE',
        // The Redis store reads its Lua scripts from files beside its modules.
        'package/dist/store/redis/lua/commit-session.lua',
        'package/dist/store/redis/lua/read-snapshot.lua',
      ]),
    );
    expect(files.filter((file) => /^package\/(src|test|examples|bench)\//.test(file))).toEqual([]);
    expect(files.filter((file) => file.endsWith('.test.js'))).toEqual([]);
    // The build's own bookkeeping (tsc's incremental state) stays home.
    expect(files.filter((file) => file.endsWith('.tsbuildinfo'))).toEqual([]);
  });

  it('runs on the Redis store, whose Lua scripts ship in the package', async () => {
    // A prefix of the test's own, so the keys the run leaves (a completed session is
    // kept for its TTL) go with the test.
    const scratch = new RedisScratch();
    try {
      expect(run('on-redis.js', { KEY_PREFIX: scratch.prefix })).toEqual({
        paused: 'pending_approval',
        done: 'completed',
      });
      expect((await scratch.keys()).length).toBeGreaterThan(0);
    } finally {
      await scratch.cleanup();
    }
  });

  it('runs a project’s own agent to a pause and an approval, from plain JavaScript', () => {
    const result = run('in-process.js');
    expect(result).toEqual({
      paused: { status: 'pending_approval', hint: 'Refund order A-1?' },
      done: {
        status: 'completed',
        result: expect.stringMatching(/^Result: \{"status":"refunded","order":"A-1","key":"hp_/),
        invocationSame: true,
      },
      again: 'ALREADY_DECIDED',
      audit: expect.arrayContaining(['requested', 'decided', 'completed']),
      refunds: [1],
    });
  });

  it.each([
    ['Hono', 'hono-server.js'],
    ['Express', 'express-server.js'],
  ])('serves its HTTP API mounted in the project’s %s server', (_name, script) => {
    expect(run(script)).toEqual({
      paused: { status: 'pending_approval', hint: 'Refund order B-2?' },
      done: { status: 'completed', result: expect.stringContaining('"order":"B-2"') },
      host: 'host',
    });
  });

  it('exposes nothing but the public API', () => {
    expect(run('private-import.js')).toEqual({ code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
  });

  it('type-checks a TypeScript app against its declarations', () => {
    const args = ['--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext'];
    expect(() =>
      execFileSync(TSC, [...args, 'typed-app.ts'], { cwd: project, encoding: 'utf8' }),
    ).not.toThrow();
  });

  it('has declarations that need nothing but its own dependencies (skipLibCheck off)', () => {
    expectOwnDeclarationsHold('typed-app.ts', []);
  });

  it('has holdpoint/react declarations a React project type-checks (skipLibCheck off)', () => {
    // React is an optional peer: a React project brings it, with its types.
    npm(
      [
        'install',
        'react@19.3.1',
        'react-dom@19.3.1',
        '@types/react@19.3.0',
        '@types/react-dom@19.3.0',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
      ],
      project,
    );
    const jsx = ['--jsx', 'react-jsx', '--lib', 'es2023,dom,dom.iterable', '--types', 'react'];
    expectOwnDeclarationsHold('typed-react.tsx', jsx);
  });

  it('`holdpoint serve --app` serves the project’s .js and .ts apps with the web UI', async () => {
    const bin = join(project, 'node_modules', 'holdpoint', 'bin', 'holdpoint.js');
    const child = spawn(
      process.execPath,
      [bin, 'serve', '--app', './refunds-app.js', '--app', './typed-app.ts', '--port', '0'],
      {
        cwd: project,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, LOG_LEVEL: 'info' },
      },
    );
    try {
      const base = await listeningUrl(child);
      const ann = { 'x-holdpoint-user': 'ann' };
      const apps = await (await fetch(`${base}/api/apps`, { headers: ann })).json();
      expect(apps.apps.map((app: { name: string }) => app.name)).toEqual(['refunds', 'typed']);
      const page = await fetch(`${base}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const typed = await fetch(`${base}/api/agent/start`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...ann },
        body: JSON.stringify({ query: 'hi', user_id: 'ann', app: 'typed' }),
      });
      expect(await typed.json()).toMatchObject({ status: 'completed', result: 'typed hello' });
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('`holdpoint init` writes a project that `npm install && npm start` serves, pausing a run', async () => {
    const bin = join(project, 'node_modules', 'holdpoint', 'bin', 'holdpoint.js');
    const said = execFileSync(process.execPath, [bin, 'init', 'starter'], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(said).toContain('Next: cd starter && npm install && npm start');
    const starter = join(project, 'starter');
    npm(['install', '--prefer-offline', '--no-audit', '--no-fund'], starter);
    // `npm start` as the project's README says; its own process group, to end npm and the server.
    const child = spawn('npm', ['start'], {
      cwd: starter,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'info' },
      detached: true,
    });
    try {
      const base = await listeningUrl(child);
      const started = await fetch(`${base}/api/agent/start`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-holdpoint-user': 'ann' },
        body: JSON.stringify({ query: 'Send 20 to Ann' }),
      });
      expect(await started.json()).toMatchObject({
        status: 'pending_approval',
        app: 'starter',
        approvals: [{ tool_name: 'send_payment', args: { amount: 20, recipient: 'Ann' } }],
        message: 'Send 20 to Ann?',
      });
    } finally {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    }
    // Nothing is written over: a second init into the same directory is refused.
    expect(() =>
      execFileSync(process.execPath, [bin, 'init', 'starter'], { cwd: project, stdio: 'pipe' }),
    ).toThrow(
      /has app\.ts, holdpoint\.config\.ts, tsconfig\.json, README\.md, \.gitignore, package\.json already/,
    );
  });
});

/** The URL the server logs once it listens. */
function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /Holdpoint listening on (http:\/\/[\d.]+:\d+)/.exec(output)?.[1];
      if (url) resolve(url);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited ${code}:\n${output}`)));
  });
}
