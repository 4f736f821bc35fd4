import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { JsonClient } from './support/json-client.js';
import { ServerProcess } from './support/server-process.js';
import { Terminal } from './support/terminal.js';

// Real OS processes start slowly on a loaded 2-core machine; they are bounded by these
// limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

// Issue 21: `holdpoint chat --app payments` asked the requester "Approve? [y/N]", answered
// FORBIDDEN, then every message was SESSION_PAUSED with no way out. Now, in a terminal, it
// says who may decide and offers /cancel; and with --url it is a client of a running
// server, whose inbox lists its sessions.
const terminals: Terminal[] = [];
let server: ServerProcess;

beforeAll(async () => {
  server = await ServerProcess.start(['--model', 'rules', '--store', 'memory']);
});
afterEach(async () => {
  await Promise.all(terminals.splice(0).map((t) => t.kill()));
});
afterAll(async () => {
  await server?.kill();
});

function terminal(args: string[]): Terminal {
  const started = Terminal.start(['chat', ...args]);
  terminals.push(started);
  return started;
}

const SESSION = /session ([0-9a-f-]{36})/;

describe('holdpoint chat, for a call its user may not decide', () => {
  it('says who may decide and offers /cancel; cancelling frees the session', async () => {
    const chat = terminal(['--model', 'rules', '--app', 'payments', '--user', 'ann']);
    chat.type('Send $200 to Jiro');
    const asked = await chat.waitFor('Type /cancel');
    expect(asked).toContain('Approval needed: process_payment');
    expect(asked).toContain('Send 200 USD to Jiro?');
    expect(asked).toContain(
      'Waiting for an approver (role approver): you asked for it, so someone else must approve it.',
    );
    expect(asked).not.toContain('Approve? [y/N]');
    chat.type('/cancel');
    await chat.waitFor('Cancelled: nothing pending runs, and the session takes new messages.');
    const mark = chat.output.length;
    chat.type('Send $5 to Ann');
    const next = await chat.waitFor('Type /cancel', mark);
    expect(next).toContain('Send 5 USD to Ann?');
    expect(next).not.toContain('SESSION_PAUSED');
    chat.type('/exit');
    await chat.waitFor(/The approval stays pending \(session [0-9a-f-]{36}\)/, mark);
    expect(await chat.exited()).toBe(0);
  });
});

describe('holdpoint chat --url, a client of a running server', () => {
  it('starts a payment there, which an approver finds in the server’s inbox and approves', async () => {
    const chat = terminal(['--url', server.url, '--app', 'payments', '--user', 'ann']);
    await chat.waitFor('Holdpoint chat — app payments.');
    chat.type('Send $200 to Jiro');
    const asked = await chat.waitFor('Type /cancel');
    const sessionId = SESSION.exec(asked)?.[1] ?? '';
    expect(asked).toContain('Waiting for an approver (role approver)');

    const maria = new JsonClient(server.url, { user: 'maria', roles: ['approver'] });
    const { body: inbox } = await maria.get('/api/approvals');
    const listed = inbox.approvals.find((a: { session_id: string }) => a.session_id === sessionId);
    expect(listed).toMatchObject({
      tool_name: 'process_payment',
      app: 'payments',
      user_id: 'ann',
      can_decide: true,
    });
    const decided = await maria.post(`/api/approvals/${listed.approval_id}`, { approved: true });
    expect(decided.body.status).toBe('completed');

    // The chat learns of it by itself, and goes on.
    await chat.waitFor(/Sent 200 USD to Jiro \(transaction TXN-[0-9A-F]{10}\)\./);
    chat.type('/exit');
    expect(await chat.exited()).toBe(0);
    const { body: session } = await new JsonClient(server.url, { user: 'ann' }).get(
      `/api/sessions/${sessionId}`,
    );
    expect(session).toMatchObject({ user_id: 'ann', app: 'payments', status: 'idle' });
  });

  it('answers what its user may decide inline, over HTTP', async () => {
    const chat = terminal(['--url', server.url, '--app', 'picker', '--user', 'pat']);
    chat.type('Pick a fruit');
    await chat.waitFor('Choose [Apple/Banana/Cherry]');
    chat.type('banana');
    await chat.waitFor('Answer (y/n');
    chat.type('y');
    await chat.waitFor('You picked Banana, and it is confirmed.');
    chat.endInput();
    expect(await chat.exited()).toBe(0);
  });

  it('refuses an app the server does not serve, and flags that only a local runtime takes', async () => {
    const unknown = terminal(['--url', server.url, '--app', 'nope']);
    await unknown.waitFor(
      /UNKNOWN_APP: Unknown app nope at http:\/\/127\.0\.0\.1:\d+\. Known apps: /,
    );
    expect(await unknown.exited()).toBe(1);
    const local = terminal(['--url', server.url, '--store', 'redis']);
    await local.waitFor(/VALIDATION_FAILED: With --url the server runs the apps/);
    expect(await local.exited()).toBe(1);
  });
});
