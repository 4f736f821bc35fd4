import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import payments from '../examples/payments/app.js';
import {
  type AuditCheckpoint,
  auditPublicKeyFrom,
  checkAuditCheckpoint,
  newAuditKeyPair,
} from '../src/core/audit-checkpoint.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import type { AuditEntry } from '../src/core/types.js';
import { createHoldpoint } from '../src/index.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { chainAudit } from '../src/session/audit/audit-chain.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { verifyWebhookSignature } from '../src/transports/notify/webhook-channel.js';
import { exampleConfig } from './support/example-apps.js';
import { JsonClient, TESTER } from './support/json-client.js';
import { storedAudit } from './support/stored-audit.js';

// Needs `npm run build` (the command line runs from dist/), Redis.
const BIN = fileURLToPath(new URL('../bin/holdpoint.js', import.meta.url));
const SECRET = 'checkpoint-secret-of-at-least-32-characters';
const scratch = new RedisScratch();
const dir = mkdtempSync(join(tmpdir(), 'hp-checkpoints-'));
const keyFile = join(dir, 'audit-key.pem');
const publicKeyFile = join(dir, 'audit-key.pub.pem');
const checkpointFile = join(dir, 'checkpoints.ndjson');
const redisFlags = [
  '--store',
  'redis',
  '--redis-url',
  TEST_REDIS_URL,
  '--redis-prefix',
  scratch.prefix,
];

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `holdpoint …` as a user runs it: its exit code and what it printed. */
async function holdpoint(...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** A receiver of checkpoint POSTs that refuses the first (it was down) and keeps the rest. */
class Receiver {
  readonly received: { headers: IncomingHttpHeaders; body: string; status: number }[] = [];
  private readonly server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const status = this.received.length === 0 ? 503 : 200;
      this.received.push({ headers: request.headers, body, status });
      response.writeHead(status).end();
    });
  });
  url = '';

  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address() as { port: number };
    this.url = `http://127.0.0.1:${address.port}/checkpoints`;
  }

  close() {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const checkpointsWritten = (): AuditCheckpoint[] =>
  readFileSync(checkpointFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((row) => JSON.parse(row));

/** Completes a payment of one approval: 6 audit lines (started … completed). */
async function payment(api: JsonClient, sessionId?: string) {
  const start = await api.post('/api/agent/start', {
    query: 'Send $200 to Jiro',
    user_id: 'payer',
    app: 'payments',
    ...(sessionId && { session_id: sessionId }),
  });
  expect(start.body.status).toBe('pending_approval');
  const [approval] = start.body.approvals;
  return { sessionId: start.body.session_id as string, approvalId: approval.approval_id as string };
}

async function decide(api: JsonClient, approvalId: string) {
  const done = await api.post(`/api/approvals/${approvalId}`, { approved: true, user_id: 'maria' });
  expect(done.body.status).toBe('completed');
}

describe('signed audit checkpoints', () => {
  const receiver = new Receiver();
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:00.000Z'));
  let first: RunningServer;
  /** A: a payment completed before the first checkpoint; B: paused then, completed later. */
  let a: string;
  let b: string;
  let firstAt: string;
  let secondAt: string;
  let retriedAt: string;

  beforeAll(async () => {
    const keygen = await holdpoint('audit', 'keygen', '--out', keyFile);
    expect(keygen.code, keygen.stderr).toBe(0);
    await receiver.start();
    first = await startServer(
      exampleConfig(
        ...redisFlags,
        '--audit-signing-key',
        keyFile,
        '--audit-checkpoint-file',
        checkpointFile,
        '--audit-checkpoint-url',
        receiver.url,
        '--audit-checkpoint-secret',
        SECRET,
      ),
      { clock },
    );
    const api = new JsonClient(`http://127.0.0.1:${first.port}`);
    const paymentA = await payment(api);
    a = paymentA.sessionId;
    await decide(api, paymentA.approvalId);
    const paymentB = await payment(api);
    b = paymentB.sessionId;

    // The minute passes: one checkpoint of both heads, in the file (the receiver is down).
    clock.advance(60_000);
    firstAt = new Date(clock.now()).toISOString();
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1));
    await vi.waitFor(() => expect(checkpointsWritten()).toHaveLength(1));
    // A minute with nothing written: nothing checkpointed, but the heads the receiver
    // missed are sent again.
    clock.advance(60_000);
    retriedAt = new Date(clock.now()).toISOString();
    await vi.waitFor(() => expect(receiver.received).toHaveLength(2));
    await decide(api, paymentB.approvalId);
    clock.advance(30_000);
    secondAt = new Date(clock.now()).toISOString();
    // At shutdown: B's new head (and, to the receiver, what it missed).
    await first.close();
  }, 60_000);

  afterAll(async () => {
    await receiver.close();
    await scratch.cleanup();
  });

  it('audit keygen writes the private key (0600) and its public key', async () => {
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(readFileSync(publicKeyFile, 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const again = await holdpoint('audit', 'keygen', '--out', keyFile);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('exists; a key is never overwritten');
  });

  it('writes one signed checkpoint per flush with changed heads, nothing when idle, the last at shutdown', () => {
    const written = checkpointsWritten();
    expect(written).toHaveLength(2);
    const keyId = written[0]?.key_id;
    expect(keyId).toMatch(/^ed25519:[0-9a-f]{16}$/);
    expect(written[0]).toMatchObject({
      v: 1,
      at: firstAt,
      heads: [{ session_id: a }, { session_id: b }],
    });
    expect(written[1]).toMatchObject({
      v: 1,
      at: secondAt,
      key_id: keyId,
      heads: [{ session_id: b }],
    });
  });

  it('POSTs them signed as webhooks are, sending again the heads a failed POST carried', () => {
    expect(receiver.received.map((r) => r.status)).toEqual([503, 200, 200]);
    const [failed, retried, last] = receiver.received;
    for (const request of [failed, retried, last]) {
      expect(request?.headers['holdpoint-delivery']).toMatch(/^[0-9a-f-]{36}$/);
      expect(verifyWebhookSignature(SECRET, request?.headers ?? {}, request?.body ?? '')).toBe(
        true,
      );
      expect(
        verifyWebhookSignature('x'.repeat(32), request?.headers ?? {}, request?.body ?? ''),
      ).toBe(false);
    }
    const [one, two] = checkpointsWritten();
    expect(JSON.parse(failed?.body ?? '')).toEqual(one);
    expect(JSON.parse(retried?.body ?? '')).toMatchObject({ at: retriedAt, heads: one?.heads });
    expect(JSON.parse(last?.body ?? '')).toEqual(two);
  });

  describe('holdpoint audit verify --checkpoints', () => {
    let second: RunningServer;
    const logs: string[] = [];

    beforeAll(async () => {
      const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(line) });
      second = await startServer(exampleConfig(...redisFlags), { logger });
    });
    afterAll(async () => {
      await second?.close();
    });

    /** The session's export, written to a file. */
    async function exported(sessionId: string, name: string): Promise<string> {
      const response = await fetch(
        `http://127.0.0.1:${second.port}/api/audit?session_id=${sessionId}&format=ndjson`,
        { headers: TESTER },
      );
      expect(response.status).toBe(200);
      const file = join(dir, name);
      writeFileSync(file, await response.text());
      return file;
    }

    const withCheckpoints = (file: string, ...keys: string[]) =>
      holdpoint(
        'audit',
        'verify',
        file,
        '--checkpoints',
        checkpointFile,
        ...(keys.length ? keys : ['--public-key', publicKeyFile]),
      );

    it('says once, at start, that a server without a key writes no checkpoints', () => {
      expect(logs.filter((line) => line.includes('Audit checkpoints: off'))).toHaveLength(1);
    });

    it('passes an untouched log, with the public key or the private key', async () => {
      const file = await exported(a, 'a-intact.ndjson');
      expect(await withCheckpoints(file)).toEqual({
        code: 0,
        stdout:
          'The audit chain holds: 6 lines.\nIt contains the 1 head of its sessions in 2 signed checkpoints.\n',
        stderr: '',
      });
      expect((await withCheckpoints(file, '--key', keyFile)).code).toBe(0);
      // Without --checkpoints, as before.
      expect(await holdpoint('audit', 'verify', file)).toMatchObject({
        code: 0,
        stdout: 'The audit chain holds: 6 lines.\n',
      });
    });

    it('fails a log rewritten in Redis after a checkpoint and re-hashed, which plain verify passes', async () => {
      const stored = storedAudit(scratch, a);
      const lines = await stored.lines();
      expect(lines[2]).toMatchObject({ action: 'decided', actor: 'maria' });
      // The attacker rewrites line 3 on (maria's decision becomes mallory's), recomputes
      // every later hash with the chain code, and moves the head, as a commit would.
      const from = 2;
      const rest = lines.slice(from).map(({ prevHash, hash, ...line }) => line as AuditEntry);
      const forged = chainAudit(lines[from - 1]?.hash ?? '', [
        { ...(rest[0] as AuditEntry), actor: 'mallory' },
        ...rest.slice(1),
      ]);
      await stored.overwrite(from, forged.lines);
      await stored.setHead(forged.head);

      const file = await exported(a, 'a-rewritten.ndjson');
      expect(readFileSync(file, 'utf8')).toContain('"actor":"mallory"');
      expect(await holdpoint('audit', 'verify', file)).toMatchObject({
        code: 0,
        stdout: 'The audit chain holds: 6 lines.\n',
      });
      const checked = await withCheckpoints(file);
      expect(checked.code).toBe(1);
      expect(checked.stdout).toBe(
        'The audit chain holds: 6 lines.\n' +
          `Checkpoint 1 of ${checkpointFile} fails: the export does not contain the head checkpointed at ${firstAt} for session ${a} (${lines.at(-1)?.hash}): rewritten or cut short.\n`,
      );
    });

    it('fails a log cut short before a checkpoint', async () => {
      const stored = storedAudit(scratch, b);
      const lines = await stored.lines();
      // The last two lines (executed, completed) go; the head is set back.
      await stored.cut(lines.length - 2);
      await stored.setHead(lines.at(-3)?.hash ?? '');

      const file = await exported(b, 'b-cut.ndjson');
      expect(await holdpoint('audit', 'verify', file)).toMatchObject({
        code: 0,
        stdout: `The audit chain holds: ${lines.length - 2} lines.\n`,
      });
      const checked = await withCheckpoints(file);
      expect(checked.code).toBe(1);
      expect(checked.stdout).toContain(
        `Checkpoint 2 of ${checkpointFile} fails: the export does not contain the head checkpointed at ${secondAt} for session ${b}`,
      );
    });

    it('fails on a checkpoint file whose signature does not hold, or a key that did not sign it', async () => {
      const file = await exported(b, 'b-for-forged.ndjson');
      const [one, two] = checkpointsWritten();
      // The attacker also "fixes" the checkpoint to name the head B has now.
      const head = readFileSync(file, 'utf8').trim().split('\n').at(-1) ?? '';
      const forged = { ...two, heads: [{ session_id: b, hash: JSON.parse(head).hash }] };
      const forgedFile = join(dir, 'forged-checkpoints.ndjson');
      writeFileSync(forgedFile, `${JSON.stringify(one)}\n${JSON.stringify(forged)}\n`);
      const checked = await holdpoint(
        'audit',
        'verify',
        file,
        '--checkpoints',
        forgedFile,
        '--public-key',
        publicKeyFile,
      );
      expect(checked.code).toBe(1);
      expect(checked.stdout).toContain('Checkpoint 2 of');
      expect(checked.stdout).toContain(
        'fails: its signature does not match its content: it was changed.',
      );

      const otherKey = join(dir, 'other.pem');
      expect((await holdpoint('audit', 'keygen', '--out', otherKey)).code).toBe(0);
      const wrongKey = await withCheckpoints(file, '--public-key', join(dir, 'other.pub.pem'));
      expect(wrongKey.code).toBe(1);
      expect(wrongKey.stdout).toMatch(
        /Checkpoint 1 of .* fails: it is signed by key ed25519:\w+, which was not given\./,
      );
    });

    it('refuses --checkpoints without a key', async () => {
      const refused = await holdpoint(
        'audit',
        'verify',
        join(dir, 'a-intact.ndjson'),
        '--checkpoints',
        checkpointFile,
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('--checkpoints needs the key they are signed with');
    });
  });
});

describe("createHoldpoint's auditCheckpoints", () => {
  const { privatePem, publicPem } = newAuditKeyPair();

  it('checkpoints the heads the Holdpoint wrote when it closes', async () => {
    const file = join(dir, 'library-checkpoints.ndjson');
    const clock = new ManualClock();
    const holdpoint = createHoldpoint({
      apps: [payments],
      clock,
      auditCheckpoints: { key: privatePem, file, everySeconds: 60 },
    });
    const paused = await holdpoint.start({ userId: 'ann', query: 'Send $200 to Jiro' });
    const head = (await holdpoint.audit({ sessionId: paused.sessionId })).entries.at(-1)?.hash;
    await holdpoint.close();
    const [record, ...more] = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(more).toEqual([]);
    const checkpoint = JSON.parse(record ?? '');
    expect(checkpoint).toMatchObject({
      at: new Date(clock.now()).toISOString(),
      heads: [{ session_id: paused.sessionId, hash: head }],
    });
    expect(checkAuditCheckpoint(checkpoint, [auditPublicKeyFrom(publicPem)]).ok).toBe(true);
  });

  it('refuses a key that is not Ed25519, and checkpoints with nowhere to go', () => {
    const apps = [payments];
    expect(() =>
      createHoldpoint({ apps, auditCheckpoints: { key: publicPem, file: join(dir, 'x') } }),
    ).toThrow(/Not an Ed25519 key/);
    expect(() => createHoldpoint({ apps, auditCheckpoints: { key: privatePem } })).toThrow(
      /needs a file or a url/,
    );
    expect(() =>
      createHoldpoint({ apps, auditCheckpoints: { key: privatePem, url: 'http://127.0.0.1:9/' } }),
    ).toThrow(/url needs secret/);
  });
});
