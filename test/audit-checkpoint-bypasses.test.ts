import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AuditCheckpoint, newAuditKeyPair } from '../src/core/audit-checkpoint.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { AUDIT_GENESIS, chainAudit } from '../src/session/audit/audit-chain.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { exampleConfig } from './support/example-apps.js';
import { JsonClient, TESTER } from './support/json-client.js';
import { runToEnd } from './support/run-to-end.js';
import { storedAudit } from './support/stored-audit.js';

// Issue 32, point 5: two ways past the signed checkpoints, by someone who can write the
// store but holds neither the key nor the checkpoint file. Needs `npm run build` (the
// command line runs from dist/), Redis.
const BIN = fileURLToPath(new URL('../bin/holdpoint.js', import.meta.url));
const scratch = new RedisScratch();
const dir = mkdtempSync(join(tmpdir(), 'hp-checkpoint-bypasses-'));
const keyPem = join(dir, 'key.pem');
const pubPem = join(dir, 'pub.pem');
const cpFile = join(dir, 'cp.ndjson');
const exportFile = join(dir, 'export.ndjson');
const pair = newAuditKeyPair();
writeFileSync(keyPem, pair.privatePem, { mode: 0o600 });
writeFileSync(pubPem, pair.publicPem);

const clock = new ManualClock(Date.parse('2026-11-22T12:00:00.000Z'));
let server: RunningServer;
let api: JsonClient;
/** Two completed payments, both checkpointed at `checkpointedAt`. */
let renamedOne: string;
let deletedOne: string;
let checkpointedAt: string;

const checkpoints = (): AuditCheckpoint[] =>
  readFileSync(cpFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((row) => JSON.parse(row));

/** A payment started, approved and completed: its session id. */
async function completedPayment(): Promise<string> {
  const start = await api.post('/api/agent/start', {
    query: 'Send $200 to Jiro',
    user_id: 'payer',
    app: 'payments',
  });
  expect(start.body.status).toBe('pending_approval');
  const done = await api.post(`/api/approvals/${start.body.approvals[0].approval_id}`, {
    approved: true,
    user_id: 'maria',
  });
  expect(done.body.status).toBe('completed');
  return start.body.session_id;
}

/** `GET /api/audit?session_id=…&format=ndjson`, written to export.ndjson. */
async function exportSession(sessionId: string): Promise<void> {
  const response = await fetch(`${api.baseUrl}/api/audit?session_id=${sessionId}&format=ndjson`, {
    headers: TESTER,
  });
  expect(response.status).toBe(200);
  writeFileSync(exportFile, await response.text());
}

/** `holdpoint audit verify export.ndjson --checkpoints cp.ndjson --public-key pub.pem …`. */
const verify = (...more: string[]) =>
  runToEnd(process.execPath, [
    BIN,
    'audit',
    'verify',
    exportFile,
    '--checkpoints',
    cpFile,
    '--public-key',
    pubPem,
    ...more,
  ]);

beforeAll(async () => {
  server = await startServer(
    exampleConfig(
      ...['--store', 'redis', '--redis-url', TEST_REDIS_URL, '--redis-prefix', scratch.prefix],
      ...['--audit-signing-key', keyPem, '--audit-checkpoint-file', cpFile],
    ),
    { clock },
  );
  api = new JsonClient(`http://127.0.0.1:${server.port}`);
  renamedOne = await completedPayment();
  deletedOne = await completedPayment();
  clock.advance(60_000);
  checkpointedAt = new Date(clock.now()).toISOString();
  await vi.waitFor(() => expect(checkpoints()).toHaveLength(1));
}, 60_000);

afterAll(async () => {
  await server?.close();
  await scratch.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('signed audit checkpoints against a store rewritten after them', () => {
  it('pass both sessions untouched', async () => {
    for (const sessionId of [renamedOne, deletedOne]) {
      await exportSession(sessionId);
      expect(await verify()).toMatchObject({
        code: 0,
        stdout:
          'The audit chain holds: 6 lines.\nIt contains the 1 head of its sessions in 1 signed checkpoint.\n',
      });
    }
  });

  it('hold an export without a header (an older release) to the session --session names, and refuse it without', async () => {
    await exportSession(deletedOne);
    const [, ...lines] = readFileSync(exportFile, 'utf8').split('\n');
    writeFileSync(exportFile, lines.join('\n'));
    const refused = await verify();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `${exportFile} names no session (it has no header row: exported by a release before exports had one): give --session ID, the session it was exported from.`,
    );
    expect(await verify('--session', deletedOne)).toMatchObject({
      code: 0,
      stdout:
        'The audit chain holds: 6 lines.\nIt contains the 1 head of its sessions in 1 signed checkpoint.\n',
    });
    expect(await verify('--session', renamedOne)).toMatchObject({
      code: 1,
      stdout: `The audit chain is broken at line 1: it belongs to session ${deletedOne}, not ${renamedOne}, the session exported: moved or renamed.\n`,
    });
    // With its header, --session must name the session the header does.
    await exportSession(deletedOne);
    expect(await verify('--session', renamedOne)).toMatchObject({
      code: 1,
      stdout: `The audit export does not verify: its header names session ${deletedOne}, not ${renamedOne}, the session asked for.\n`,
    });
  });

  it("fail a session whose decided line was rewritten, its chain re-hashed and every line's session_id changed to a new id", async () => {
    const stored = storedAudit(scratch, renamedOne);
    const lines = await stored.lines();
    expect(lines[2]).toMatchObject({ action: 'decided', actor: 'maria' });
    const newId = `renamed-${randomUUID()}`;
    const forged = chainAudit(
      AUDIT_GENESIS,
      lines.map(({ prevHash, hash, ...line }) => ({
        ...line,
        sessionId: newId,
        ...(line.action === 'decided' && { actor: 'mallory' }),
      })),
    );
    await stored.overwrite(0, forged.lines);
    await stored.setHead(forged.head);

    await exportSession(renamedOne);
    expect(readFileSync(exportFile, 'utf8')).toContain('"actor":"mallory"');
    const checked = await verify();
    expect(checked.code).toBe(1);
    const renamed = `The audit chain is broken at line 1: it belongs to session ${newId}, not ${renamedOne}, the session exported: moved or renamed.\n`;
    expect(checked.stdout).toBe(renamed);
    // The header alone shows it, without the checkpoints too.
    expect(await runToEnd(process.execPath, [BIN, 'audit', 'verify', exportFile])).toMatchObject({
      code: 1,
      stdout: renamed,
    });
  });

  it('fail a session whose lines were all deleted', async () => {
    const stored = storedAudit(scratch, deletedOne);
    const head = (await stored.lines()).at(-1)?.hash;
    await stored.deleteAll();
    await stored.setHead(AUDIT_GENESIS);

    await exportSession(deletedOne);
    const checked = await verify();
    expect(checked.code).toBe(1);
    expect(checked.stdout).toBe(
      'The audit chain holds: 0 lines.\n' +
        `Checkpoint 1 of ${cpFile} fails: the export holds no line of session ${deletedOne}, which was checkpointed at ${checkpointedAt} with head ${head}: its log was deleted.\n`,
    );
  });

  it('fail a session removed whole from the store, checked as an empty export with --session', async () => {
    const gone = `${scratch.prefix}:{s:${deletedOne}}:record`;
    await scratch.redis.del(gone);
    const response = await fetch(
      `${api.baseUrl}/api/audit?session_id=${deletedOne}&format=ndjson`,
      { headers: TESTER },
    );
    expect(response.status).toBe(404);
    const checked = await runToEnd(
      process.execPath,
      [
        BIN,
        'audit',
        'verify',
        '-',
        '--session',
        deletedOne,
        '--checkpoints',
        cpFile,
        '--public-key',
        pubPem,
      ],
      { input: '' },
    );
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(
      `Checkpoint 1 of ${cpFile} fails: the export holds no line of session ${deletedOne}, which was checkpointed at ${checkpointedAt}`,
    );
  });
});
