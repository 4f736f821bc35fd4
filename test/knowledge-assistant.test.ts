import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  FIXTURE_TEXT,
  FixtureServer,
} from '../examples/knowledge-assistant/fixture-server.test-support.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { ServerProcess } from './support/server-process.js';
import { ownDataDir } from './support/temp-data-dir.js';

// Real OS processes start slowly on a loaded 2-core machine; they are bounded by these
// limits, not timed by them.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

// Seed 003's knowledge assistant as its users meet it: the draft review loop and the
// fact picker survive a server restart on Redis, and the CLI (in a pseudo-terminal, as a
// person types) creates a domain and saves picked facts, and goes on with a session later.
const APP = fileURLToPath(new URL('../examples/knowledge-assistant/app.ts', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/holdpoint.js', import.meta.url));
const scratch = new RedisScratch();
const REDIS_FLAGS = [
  '--store',
  'redis',
  '--redis-url',
  TEST_REDIS_URL,
  '--redis-prefix',
  scratch.prefix,
];
/** The fixtures are served on this machine, where the app's links may not lead by default. */
const PRIVATE_FIXTURES = { KNOWLEDGE_ALLOW_PRIVATE_NETWORKS: 'true' };
const servers: ServerProcess[] = [];
let fixtures: FixtureServer;

beforeAll(async () => {
  fixtures = await FixtureServer.start();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.kill('SIGKILL')));
});
afterAll(async () => {
  await fixtures.stop();
  await scratch.cleanup();
});

async function server(): Promise<ServerProcess> {
  const started = await ServerProcess.start(
    [...REDIS_FLAGS, '--app', APP, '--model', 'rules'],
    PRIVATE_FIXTURES,
  );
  servers.push(started);
  return started;
}

/** A server killed as a crash would, and a new one on the same Redis. */
async function restart(old: ServerProcess): Promise<ServerProcess> {
  await old.kill('SIGKILL');
  return server();
}

describe('knowledge-assistant across a server restart on Redis', () => {
  it('keeps the prettify loop and the fact picker waiting, and goes on after the restart', async () => {
    let api = await server();
    const say = async (query: string, sessionId?: string) => {
      const { status, body } = await api.client.post('/api/agent/start', {
        user_id: 'ann',
        query,
        ...(sessionId ? { session_id: sessionId } : {}),
      });
      expect(status, JSON.stringify(body)).toBe(200);
      return body;
    };
    const answer = async (approvalId: string, payload: unknown) => {
      const { status, body } = await api.client.post(`/api/approvals/${approvalId}`, {
        user_id: 'ann',
        approved: true,
        payload,
      });
      expect(status, JSON.stringify(body)).toBe(200);
      return body;
    };
    const pendingOf = async (sessionId: string) => {
      const { body } = await api.client.get(`/api/sessions/${sessionId}?user_id=ann`);
      return body.pending_approvals as {
        approval_id: string;
        tool_name: string;
        args: Record<string, unknown>;
      }[];
    };

    const { session_id: sessionId } = await say('My name is Ann');
    await say('Create a domain', sessionId);
    const first = await say('bread baking', sessionId);
    expect(first.status).toBe('pending_approval');
    const corrected = await answer(first.approvals[0].approval_id, {
      item: 'Rust programming: ownership, borrowing and lifetimes in rust',
    });
    expect(corrected.status).toBe('pending_approval');

    api = await restart(api);
    const [review] = await pendingOf(sessionId);
    expect(review).toMatchObject({
      tool_name: 'review_domain_draft',
      args: { name: 'Rust Programming', options: ['Approve', 'Cancel'] },
    });
    const saved = await answer(review?.approval_id ?? '', { item: 'Approve' });
    expect(saved).toMatchObject({
      status: 'completed',
      result: expect.stringContaining('Domain d-1 is saved.'),
    });

    const url = `${fixtures.url}/docs/rust.pdf`;
    const picking = await say(`Read ${url}`, sessionId);
    expect(picking.status).toBe('pending_approval');
    api = await restart(api);
    const [pick] = await pendingOf(sessionId);
    expect(pick).toMatchObject({ tool_name: 'pick_facts_to_save', args: { multiple: true } });
    const done = await answer(pick?.approval_id ?? '', {
      items: [String((pick?.args.options as string[] | undefined)?.[0])],
    });
    expect(done).toMatchObject({
      status: 'completed',
      result: expect.stringContaining(`Finished ${url}: saved 1 fact(s)`),
    });
    const { body: session } = await api.client.get(`/api/sessions/${sessionId}?user_id=ann`);
    expect(session.state).toMatchObject({
      user_name: 'Ann',
      name_attempts: 0,
      intent: null,
      domain_id: null,
      processed_intent: { intent: 'create', domain_id: 'd-1', status: 'processed_successful' },
      url: null,
      url_type: 'pdf',
      processed_url: url,
      url_result: 'saved 1 fact(s)',
      'user:domains': [expect.objectContaining({ domain_id: 'd-1', name: 'Rust Programming' })],
    });
    // The picked fact is in ADK's memory service, which keeps it in Redis.
    const stored = await scratch.redis.hvals(
      `${scratch.prefix}:{a:knowledge-assistant}:user:ann:memories`,
    );
    expect(stored.map((json) => JSON.parse(json).memories)).toEqual([
      [
        expect.objectContaining({
          content: { role: 'user', parts: [{ text: FIXTURE_TEXT.pdf[0] }] },
          metadata: { user_id: 'ann', domain_id: 'd-1', source_url: url, fact_id: 'f1' },
        }),
      ],
    ]);
  });
});

/**
 * `holdpoint chat` in a pseudo-terminal (util-linux `script` gives it one, as a
 * terminal would), a person typing `lines` and then Ctrl-D; resolves everything it printed.
 */
function chatInTerminal(args: string[], lines: string[]): Promise<string> {
  const command = [process.execPath, BIN, 'chat', '--model', 'rules', '--app', APP, ...args]
    .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
    .join(' ');
  return new Promise((resolve, reject) => {
    const data = ownDataDir(args, PRIVATE_FIXTURES);
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...process.env, ...data.env, TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    data.removeOnExit(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(output.replaceAll('\r\n', '\n'))
        : reject(new Error(`exit ${code}:\n${output}`)),
    );
    // Ctrl-D at the start of a line: the terminal's end of input.
    child.stdin.write(`${lines.join('\n')}\n\x04`);
  });
}

describe('knowledge-assistant in the CLI, in a terminal', () => {
  it('creates a domain and saves the facts a person picks', async () => {
    const url = `${fixtures.url}/docs/rust.pdf`;
    const output = await chatInTerminal(
      [],
      [
        'My name is Ann',
        'Create a domain',
        'rust programming: ownership, borrowing and lifetimes in rust',
        'Approve',
        url,
        '2',
        '/exit',
      ],
    );
    expect(output).toMatch(/session [0-9a-f-]{36}/);
    expect(output).toContain('Nice to meet you, Ann!');
    expect(output).toContain('Approval needed: review_domain_draft');
    expect(output).toContain('Choose [Approve/Cancel] or type your answer');
    expect(output).toContain('Domain d-1 is saved.');
    expect(output).toContain('Approval needed: pick_facts_to_save');
    expect(output).toContain(`1) f1: ${FIXTURE_TEXT.pdf[0]}`);
    expect(output).toContain(`2) f2: ${FIXTURE_TEXT.pdf[1]}`);
    expect(output).toContain('Saved 1 fact(s) to your memory.');
    expect(output).toContain(`Finished ${url}: saved 1 fact(s)`);
  });

  it('goes on with a session in a later chat, asking its pending review first', async () => {
    const first = await chatInTerminal(REDIS_FLAGS, [
      'My name is Ann',
      'Create a domain',
      'rust: memory safety',
    ]);
    const sessionId = /stays pending \(session ([0-9a-f-]{36})\)/.exec(first)?.[1];
    expect(sessionId, first).toBeDefined();
    const later = await chatInTerminal(
      [...REDIS_FLAGS, '--session', sessionId ?? ''],
      ['Rust: memory safety and fearless concurrency', 'Approve', 'list my domains', '/exit'],
    );
    expect(later).toContain(`session ${sessionId} reopened`);
    expect(later).toContain('Approval needed: review_domain_draft');
    expect(later).toContain('Domain d-1 is saved.');
    expect(later).toContain('- d-1: Rust (rust, memory, safety, fearless, concurrency)');
  });
});
