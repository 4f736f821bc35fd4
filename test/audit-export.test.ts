import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditLine } from '../src/core/audit-line.js';
import { hashJson } from '../src/core/hash.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { verifyAuditFile } from '../src/main/verify-audit-file.js';
import { AUDIT_GENESIS, auditLineHash } from '../src/session/audit/audit-chain.js';
import { verifyAuditChain } from '../src/session/audit/verify-audit-chain.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { exampleConfig } from './support/example-apps.js';
import { JsonClient, TESTER } from './support/json-client.js';

const BIN = fileURLToPath(new URL('../bin/holdpoint.js', import.meta.url));
const scratch = new RedisScratch();
const dir = mkdtempSync(join(tmpdir(), 'hp-audit-'));
let server: RunningServer;
let api: JsonClient;

beforeAll(async () => {
  server = await startServer(
    exampleConfig(
      '--store',
      'redis',
      '--redis-url',
      TEST_REDIS_URL,
      '--redis-prefix',
      scratch.prefix,
    ),
  );
  api = new JsonClient(`http://127.0.0.1:${server.port}`);
});

afterAll(async () => {
  await server?.close();
  await scratch.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** The session's export: the response, its header row and its lines, parsed. */
async function exportOf(sessionId: string) {
  const response = await fetch(`${api.baseUrl}/api/audit?session_id=${sessionId}&format=ndjson`, {
    headers: TESTER,
  });
  const body = await response.text();
  const [header, ...rows] = body.split('\n').filter((row) => row !== '') as string[];
  return {
    response,
    body,
    header: JSON.parse(header ?? 'null'),
    lines: rows.map((row) => JSON.parse(row) as AuditLine),
  };
}

/** Every line of the session through the paged JSON API. */
async function pagedLines(sessionId: string): Promise<AuditLine[]> {
  const lines: AuditLine[] = [];
  let cursor = '';
  do {
    const page = await api.get(`/api/audit?session_id=${sessionId}&limit=200${cursor}`);
    lines.push(...page.body.entries);
    cursor = page.body.next_cursor ? `&cursor=${page.body.next_cursor}` : '';
  } while (cursor);
  return lines;
}

/** The `holdpoint audit verify` command on `file`, as a user runs it (needs `npm run build`). */
async function verifyCommand(file: string) {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'audit', 'verify', file]);
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

describe('the audit log export', () => {
  // Payments of two approvals, each decided on its own: 9 lines a run, so 23 runs
  // make a log longer than one page (200).
  const RUNS = 23;
  let sessionId: string;
  let invocationIds: string[];

  beforeAll(async () => {
    invocationIds = [];
    for (let run = 0; run < RUNS; run++) {
      const start = await api.post('/api/agent/start', {
        query: 'send 50 EUR to Ana and $20 to Bob',
        user_id: `payer-${run}`,
        app: 'payments',
        ...(sessionId ? { session_id: sessionId } : {}),
      });
      expect(start.body.status).toBe('pending_approval');
      sessionId = start.body.session_id;
      invocationIds.push(start.body.invocation_id);
      const [first, second] = start.body.approvals;
      await api.post(`/api/approvals/${first.approval_id}`, {
        approved: true,
        reason: 'known payee',
        user_id: 'maria',
      });
      const done = await api.post(`/api/approvals/${second.approval_id}`, {
        approved: true,
        user_id: 'jiro',
      });
      expect(done.body.status).toBe('completed');
    }
  });

  it('streams the whole log as NDJSON, oldest first, as the JSON API shows it; the chain holds', async () => {
    const { response, body, header, lines } = await exportOf(sessionId);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    expect(body.endsWith('\n')).toBe(true);
    // The first row names the session asked for, so verify can hold every line to it.
    expect(body.startsWith(`{"export":"audit","v":1,"session_id":"${sessionId}"}\n`)).toBe(true);
    expect(header).toEqual({ export: 'audit', v: 1, session_id: sessionId });
    expect(
      verifyAuditChain(
        body
          .trim()
          .split('\n')
          .map((row) => JSON.parse(row)),
      ),
    ).toEqual({
      ok: true,
      lines: RUNS * 9,
    });
    expect(lines).toHaveLength(RUNS * 9);
    expect(lines).toEqual(await pagedLines(sessionId));
    expect(verifyAuditChain(lines)).toEqual({ ok: true, lines: RUNS * 9 });

    expect(lines.slice(0, 9).map((l) => l.action)).toEqual([
      'started',
      'requested',
      'requested',
      'decided',
      'decided',
      'resumed',
      'executed',
      'executed',
      'completed',
    ]);
    expect(lines[0]).toMatchObject({
      action: 'started',
      actor: 'payer-0',
      invocation_id: invocationIds[0],
      prev_hash: AUDIT_GENESIS,
    });
    expect(lines[9 * 22]).toMatchObject({ action: 'started', actor: 'payer-22' });
    expect(lines[3]).toMatchObject({ actor: 'maria', approved: true, reason: 'known payee' });
    for (const line of lines) expect(line.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('shows a line changed in Redis at that line, and one whose hash was made again at the next', async () => {
    const { lines: before } = await exportOf(sessionId);
    const intact = join(dir, 'intact.ndjson');
    writeFileSync(intact, before.map((line) => `${JSON.stringify(line)}\n`).join(''));

    // Line 4 of the export (index 3): maria's decision, now claimed by someone else. It is
    // an item of the session's log, where the record's fifth line says which items are
    // audit lines ('.').
    const key = `${scratch.prefix}:{s:${sessionId}}:events`;
    const record = (await scratch.redis.get(`${scratch.prefix}:{s:${sessionId}}:record`)) ?? '';
    const tokens = (record.split('\n')[4] ?? '').split(' ');
    const at = tokens.flatMap((token, i) => (token === '.' ? [i] : []))[3] as number;
    const stored = JSON.parse((await scratch.redis.lindex(key, at)) as string);
    expect(stored).toMatchObject({ action: 'decided', actor: 'maria' });
    await scratch.redis.lset(key, at, JSON.stringify({ ...stored, actor: 'mallory' }));
    const changed = await exportOf(sessionId);
    expect(changed.lines[3]?.actor).toBe('mallory');
    expect(verifyAuditChain(changed.lines)).toEqual({
      ok: false,
      line: 4,
      reason: expect.stringMatching(/hash does not match its content/),
    });
    const changedFile = join(dir, 'changed.ndjson');
    writeFileSync(changedFile, changed.body);

    // The forger knows the hash: the next line's link still names the true line.
    const forged = { ...changed.lines[3], hash: undefined };
    const hash = auditLineHash(forged);
    await scratch.redis.lset(key, at, JSON.stringify({ ...stored, actor: 'mallory', hash }));
    const reforged = await exportOf(sessionId);
    expect(verifyAuditChain(reforged.lines)).toEqual({
      ok: false,
      line: 5,
      reason: expect.stringMatching(/prev_hash is not the hash of line 4/),
    });

    expect(await verifyAuditFile(changedFile)).toMatchObject({ ok: false, line: 4 });
    expect(await verifyAuditFile('-', Readable.from([reforged.body]))).toMatchObject({
      ok: false,
      line: 5,
    });
    expect(await verifyCommand(intact)).toEqual({
      code: 0,
      stdout: `The audit chain holds: ${RUNS * 9} lines.\n`,
    });
    const broken = await verifyCommand(changedFile);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^The audit chain is broken at line 4: its hash does not match/);
  }, 60_000);

  it("records a decision's payload by its hash", async () => {
    const start = await api.post('/api/agent/start', {
      query: 'Pick a fruit',
      user_id: 'u2',
      app: 'picker',
    });
    const [select] = start.body.approvals;
    await api.post(`/api/approvals/${select.approval_id}`, {
      approved: true,
      payload: { item: 'Banana' },
      user_id: 'u2',
    });
    const { lines } = await exportOf(start.body.session_id);
    expect(lines.find((l) => l.action === 'decided')).toMatchObject({
      actor: 'u2',
      payload_hash: hashJson({ item: 'Banana' }),
    });
    expect(verifyAuditChain(lines)).toMatchObject({ ok: true });
  });

  it('refuses a page or a format it does not know, and an unknown session, before streaming', async () => {
    const paged = await api.get(`/api/audit?session_id=${sessionId}&format=ndjson&limit=5`);
    expect(paged.status).toBe(400);
    expect(paged.body.error.code).toBe('VALIDATION_FAILED');
    expect((await api.get(`/api/audit?session_id=${sessionId}&format=xml`)).status).toBe(400);
    const unknown = await api.get('/api/audit?session_id=no-such-session&format=ndjson');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('SESSION_NOT_FOUND');
  });
});

describe('holdpoint audit verify', () => {
  it('says a file that is not NDJSON breaks at its first bad row', async () => {
    const file = join(dir, 'bad.ndjson');
    writeFileSync(file, 'not json\n');
    expect(await verifyAuditFile(file)).toEqual({ ok: false, line: 1, reason: 'it is not JSON' });
    writeFileSync(file, '');
    expect(await verifyAuditFile(file)).toEqual({ ok: true, lines: 0 });
  });
});
