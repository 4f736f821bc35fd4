import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { type Ended, runToEnd } from './support/run-to-end.js';
import { ownDataDir } from './support/temp-data-dir.js';

// Real OS processes (and a browser) start slowly on a loaded 2-core machine; they are bounded
// by these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const BIN = fileURLToPath(new URL('../bin/holdpoint.js', import.meta.url));

/** Runs the command as a user would, typing `lines`, and returns its exit code and output. */
function run(args: string[], lines: string[] = []): Promise<Ended> {
  const data = ownDataDir(args, {});
  return runToEnd(process.execPath, [BIN, ...args], {
    env: data.env,
    input: lines.length > 0 ? `${lines.join('\n')}\n` : '',
    onSpawn: (child) => data.removeOnExit(child),
  });
}

/** `holdpoint chat` on the offline models, typing `lines`. */
function chat(args: string[], lines: string[]): Promise<{ code: number | null; output: string }> {
  return run(['chat', '--model', 'rules', ...args], lines);
}

describe('holdpoint chat', () => {
  it('shows the session, the approval with its arguments and hint, and the result', async () => {
    const { code, output } = await chat([], ['Generate 10 images', 'y', 'Generate 2 images', 'n']);
    expect(code).toBe(0);
    expect(output).toMatch(/session [0-9a-f-]{36}/);
    expect(output).toContain(
      'Other apps (--app NAME): knowledge-assistant, payments, picker, story-flow.',
    );
    expect(output).toContain('Approval needed: request_image_generation');
    expect(output).toContain('{"num_images":10}');
    expect(output).toContain('⚠️ Large request: 10 images');
    expect(output).toContain('Approve? [y/N]');
    expect(output).toContain('Here are the 10 images (order REQ-10-HUMAN).');
    expect(output).toContain('The request was rejected, so no images were generated.');
    // Only the chat: no log lines, ADK's own included.
    expect(output).not.toMatch(/\[ADK\]|"level":/);
  });

  it('answers the picker’s two input requests inline', async () => {
    const { output } = await chat(['--app', 'picker'], ['Pick a fruit', 'banana', 'y']);
    expect(output).toContain('Choose [Apple/Banana/Cherry]');
    expect(output).toContain('You picked Banana, and it is confirmed.');
  });

  it('leaves an approval pending when the input ends at its prompt, deciding nothing', async () => {
    const { code, output } = await chat(['--app', 'image-studio'], ['Generate 10 images']);
    expect(code).toBe(0);
    expect(output).toContain('Approve? [y/N]');
    expect(output).toMatch(/Input ended: the approval stays pending \(session [0-9a-f-]{36}\)/);
    expect(output).not.toContain('Here are');
  });

  it('chats with an app module named by its path, loaded as a user’s', async () => {
    const { code, output } = await chat(
      ['--app', './examples/image-studio/app.ts'],
      ['Generate 3 images', 'y'],
    );
    expect(code).toBe(0);
    expect(output).toContain('Holdpoint chat — app image-studio.');
    expect(output).toContain('Here are the 3 images (order REQ-3-HUMAN).');
  });

  it('does not ask the one who asked for a payment: it says who may decide, and waits', async () => {
    // Issue 21: it asked "Approve? [y/N]", answered FORBIDDEN, then SESSION_PAUSED for good.
    const { code, output } = await chat(
      ['--app', 'payments', '--user', 'ann', '--roles', 'approver'],
      ['Send $5 to Ann', 'y'],
    );
    expect(code).toBe(0);
    expect(output).toContain('Approval needed: process_payment');
    expect(output).toContain(
      'Waiting for an approver (role approver): you asked for it, so someone else must approve it.',
    );
    expect(output).toContain('Type /cancel to cancel it, or wait here for the decision');
    expect(output).toContain('The session waits for a decision: /cancel, or wait.');
    expect(output).toMatch(/Input ended: the approval stays pending \(session [0-9a-f-]{36}\)/);
    expect(output).not.toContain('Approve? [y/N]');
    expect(output).not.toMatch(/FORBIDDEN|SESSION_PAUSED|Sent 5 USD/);
  });

  it('asks a tool’s own payload after the yes, and takes any value for an input', async () => {
    const { code, output } = await chat(
      ['--app', './test/support/approval-tools-app.ts'],
      ['asks 7', 'y', '{"note":"from the terminal"}', 'value', 'red', 'value', '{"colour":"blue"}'],
    );
    expect(code).toBe(0);
    expect(output).toContain('Move 7 credits? Add a note.');
    expect(output).toContain('Payload (JSON; empty keeps {"note":""}): ');
    expect(output).toMatch(/asks_itself: \{[^\n]*"note":"from the terminal"/);
    expect(output).toContain('Answer (y/n, a JSON value or text; empty to decline): ');
    expect(output).toContain('ask_value: {"value":"red"}');
    expect(output).toContain('ask_value: {"colour":"blue"}');
  });

  it.each([
    ['./test/fixtures/apps/missing.ts', /APP_LOAD_FAILED: Cannot load .*missing\.ts/],
    [
      './test/fixtures/apps/not-an-app.ts',
      /APP_LOAD_FAILED: .*not-an-app\.ts: its default export must be defineApp/,
    ],
  ])('refuses the app module %s with a clear error', async (path, message) => {
    const { code, output } = await chat(['--app', path], ['hello']);
    expect(code).toBe(1);
    expect(output).toMatch(message);
  });

  it('refuses an unknown app with a clear error', async () => {
    const { code, output } = await chat(['--app', 'nope'], ['hello']);
    expect(code).toBe(1);
    expect(output).toContain('UNKNOWN_APP: Unknown app nope');
  });
});

describe('holdpoint chat: decisions richer than yes or no (issue 25)', () => {
  const RICH = './test/support/rich-decisions-app.ts';
  let server: RunningServer;
  beforeAll(async () => {
    const flags = ['--port', '0', '--log-level', 'silent', '--model', 'rules', '--store', 'memory'];
    server = await startServer(loadConfig(['--app', RICH, ...flags], {}));
  });
  afterAll(async () => server?.close());

  /** The same typing, in this process's runtime and against a running server (`--url`). */
  const both = (lines: string[]) =>
    Promise.all([
      chat(['--app', RICH], lines),
      run(['chat', '--url', `http://127.0.0.1:${server.port}`, '--user', 'ann'], lines),
    ]);

  it('edits field by field, shows the change, and the tool runs with it', async () => {
    for (const { code, output } of await both(['pay 200 Jiro', 'e', '150', '', 'y'])) {
      expect(code).toBe(0);
      expect(output).toContain('Approve? [y/N] (e to edit)');
      expect(output).toContain('amount [200]: ');
      expect(output).toContain('recipient ["Jiro"]: ');
      expect(output).not.toContain('currency [');
      expect(output).toContain('amount: 200 → 150');
      expect(output).toContain('Approve the call with these arguments? [y/N]');
      expect(output).toContain('pay: {"status":"sent","amount":150,"recipient":"Jiro"');
    }
  });

  it('says the editor approved already when a raise waits for a second approver', async () => {
    for (const { code, output } of await both(['pay 200 Jiro', 'e', '300', '', 'y', '/exit'])) {
      expect(code).toBe(0);
      expect(output).toContain('; the model asked for {"amount":200,');
      expect(output).toContain(': you approved it already, so someone else must approve it too.');
      expect(output).not.toContain('you are not among them');
    }
  });

  it('rejects with the reason asked, which the agent says', async () => {
    for (const { output } of await both(['pay 200 Jiro', 'n', 'wrong recipient: pay Hana'])) {
      expect(output).toContain('Reason (optional; the agent sees it): ');
      expect(output).toContain('wrong recipient: pay Hana');
      expect(output).not.toContain('"status":"sent"');
    }
  });

  it('answers in the tool’s place where its policy allows', async () => {
    for (const { output } of await both(['lookup weather', 'r', '{"answer":"sunny"}'])) {
      expect(output).toContain('(r to answer in its place)');
      expect(output).toContain('lookup: {"answer":"sunny"}');
      expect(output).not.toContain('the tool looked up');
    }
  });

  it('declines an input request with a reason', async () => {
    for (const { output } of await both(['value', '', 'no colour today'])) {
      expect(output).toContain('no colour today');
    }
  });
});

describe('holdpoint serve', () => {
  it('stops with LISTEN_FAILED when its port is taken, and with VALIDATION_FAILED on a bad flag', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as AddressInfo).port);
    try {
      const busy = await run(['serve', '--port', port]);
      expect(busy.code).toBe(1);
      expect(busy.output).toContain(
        `LISTEN_FAILED: Cannot listen on 127.0.0.1:${port}: EADDRINUSE.`,
      );
      // Refused before anything else started: not one app loaded.
      expect(busy.output).not.toContain('Loading');
      const typo = await run(['serve', '--prot', port]);
      expect(typo.code).toBe(2);
      expect(typo.output).toMatch(/VALIDATION_FAILED: Unknown option '--prot'/);
    } finally {
      taken.close();
    }
  });
});

describe('a command line given wrong', () => {
  it('is one line naming what is wrong, a near miss and where help is, exit 2: no help dump', async () => {
    const cases: [string[], string][] = [
      [
        ['serve', '--prot', '4000'],
        "holdpoint: VALIDATION_FAILED: Unknown option '--prot': did you mean --port? (holdpoint --help lists the commands and options)\n",
      ],
      [
        ['--bogus'],
        "holdpoint: VALIDATION_FAILED: Unknown option '--bogus'. (holdpoint --help lists the commands and options)\n",
      ],
      [
        ['frobnicate'],
        "holdpoint: VALIDATION_FAILED: Unknown command 'frobnicate'. (holdpoint --help lists the commands and options)\n",
      ],
      [
        ['sevre'],
        "holdpoint: VALIDATION_FAILED: Unknown command 'sevre': did you mean serve? (holdpoint --help lists the commands and options)\n",
      ],
    ];
    for (const [args, said] of cases) {
      const ended = await run(args);
      expect(ended.code, args.join(' ')).toBe(2);
      expect(ended.output, args.join(' ')).toBe(said);
    }
  });

  it('says at once that a PostgreSQL URL names no user, where none is set beside it', async () => {
    const url = 'postgres://127.0.0.1:5432/holdpoint';
    const ended = await runToEnd(
      process.execPath,
      [BIN, 'db', 'stats', '--store', 'postgres', '--postgres-url', url],
      { env: { USER: '', PGUSER: '' } },
    );
    expect(ended.code).toBe(1);
    expect(ended.output).toBe(
      `holdpoint: VALIDATION_FAILED: The PostgreSQL URL ${url} names no user, and neither PGUSER nor USER is set: name one, e.g. postgres://holdpoint@127.0.0.1:5432/holdpoint. (holdpoint --help lists the commands and options)\n`,
    );
  });

  it("takes flags with no command before them as serve's, and --help as the help", async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.output).toContain('Usage:');
    const wrongValue = await run(['--pause-ttl', 'soon']);
    expect(wrongValue.code).toBe(1);
    expect(wrongValue.output).toMatch(
      /^holdpoint: VALIDATION_FAILED: Invalid setting pauseTtlSeconds: .* \(holdpoint --help lists the commands and options\)\n$/,
    );
  });
});
