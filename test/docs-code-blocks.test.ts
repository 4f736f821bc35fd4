import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type CodeBlock,
  codeBlocks,
  isRegionOf,
  promisedOutputs,
  unkeptPromise,
} from './support/code-blocks.js';
import { freePort } from './support/free-port.js';
import { runToEnd } from './support/run-to-end.js';
import { ServerProcess } from './support/server-process.js';

// Every code block of README.md and docs/*.md says, in the comment before it, how it is
// checked, and is: `runs` (a shell block, run against a real `holdpoint serve`), `same-as
// <file>` (a region of a file that runs here or in another test; ai-sdk-client.ts, React
// hooks, only type-checks), `json` (it parses), or `illustrative: <why>` (it cannot run
// here: production sign-in, a clone from GitHub, an interactive session).
// The TypeScript the docs show lives in test/fixtures/docs/, type-checked by `tsc -p .`
// and run here against the packed package installed in a new project, on rules models:
// a new program there goes in PROGRAMS or SERVERS.

// Packing, installing and starting a dozen Node processes takes a while on a busy 2-core machine.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 600_000 });

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURES = join(ROOT, 'test', 'fixtures', 'docs');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const BLOCKS: CodeBlock[] = DOCS.flatMap((doc) => codeBlocks(join(ROOT, doc), doc));
const name = (block: CodeBlock) => `${block.doc}:${block.line} (${block.lang || 'text'})`;
const SHELL = new Set(['sh', 'bash', 'shell']);

/**
 * What the reader installs beside Holdpoint: ADK (its peer), zod, the servers the docs
 * mount it in, the protocols' official clients.
 */
const READER_DEPENDENCIES = [
  '@google/adk@2.0.0',
  '@ag-ui/client@1.0.4',
  '@a2a-js/sdk@1.3.0',
  '@modelcontextprotocol/sdk@1.32.2',
  'zod@4.6.7',
  'hono@4.13.19',
  '@hono/node-server@2.1.8',
  'express@5.3.0',
];

/** Fixtures that are programs: each exits 0 and prints what its `→` comments promise. */
const PROGRAMS = [
  'in-process.ts',
  'images.ts',
  'run-custom-agent.ts',
  'run-my-model.ts',
  'traces.ts',
  'sign-in.ts',
  'wait-for-approval.ts',
  'sla.ts',
  'audit-checkpoints.ts',
  'decisions.ts',
  'mcp-tools.ts',
];
/** Fixtures that are clients of `holdpoint serve` (at HOLDPOINT_URL): each prints what it promises. */
const CLIENTS = ['ag-ui-client.ts', 'a2a-client.ts', 'mcp-client.ts'];
/** Fixtures that are servers: each listens on PORT and answers a payment with a pause. */
const SERVERS = ['hono-server.ts', 'node-server.ts', 'express-server.ts'];

describe('every code block of README.md and docs/ says how it is checked', () => {
  it('finds the blocks', () => {
    expect(BLOCKS.length).toBeGreaterThan(20);
  });

  it.each(BLOCKS.map((block) => [name(block), block] as const))('%s', (_name, block) => {
    const check = block.check;
    expect(check, 'no <!-- checked: … --> comment before it').toBeDefined();
    if (check === 'runs') {
      expect(SHELL.has(block.lang), 'only shell blocks run as they are').toBe(true);
    } else if (check?.startsWith('same-as ')) {
      const file = check.slice('same-as '.length);
      expect(existsSync(join(ROOT, file)), `${file} exists`).toBe(true);
      expect(isRegionOf(block.text, readFileSync(join(ROOT, file), 'utf8'))).toBe(true);
    } else if (check === 'json') {
      expect(() => JSON.parse(block.text)).not.toThrow();
    } else {
      expect(check).toMatch(/^illustrative: \S/);
    }
  });
});

describe('links between README.md and docs/', () => {
  it.each(DOCS)('%s links to files and headings that exist', (doc) => {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    const broken = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((link) => link[1] ?? '')
      .filter((target) => !/^[a-z]+:/.test(target))
      .filter((target) => {
        const [path = '', anchor] = target.split('#');
        const file = path ? join(ROOT, dirname(doc), path) : join(ROOT, doc);
        if (!existsSync(file)) return true;
        return anchor !== undefined && !headingAnchors(file).includes(anchor);
      });
    expect(broken).toEqual([]);
  });
});

describe('the docs’ code runs as written', () => {
  let project: string;
  let server: ServerProcess;

  // The packed package in a new project, as docs/library.md installs it, with the fixtures.
  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist', 'index.js'))) throw new Error('npm run build first');
    project = mkdtempSync(join(tmpdir(), 'holdpoint-docs-'));
    const manifest = { name: 'docs-reader', private: true, type: 'module' };
    writeFileSync(join(project, 'package.json'), JSON.stringify(manifest));
    npm(['pack', '--ignore-scripts', '--pack-destination', project], ROOT);
    const tarball = readdirSync(project).find((file) => file.endsWith('.tgz')) ?? '';
    npm(['install', `./${tarball}`, ...READER_DEPENDENCIES], project);
    cpSync(FIXTURES, project, { recursive: true });
    // `npm start` after its build: the repository's example apps, from holdpoint.config.ts.
    server = await ServerProcess.start([], { HOLDPOINT_STORE: 'memory' });
  });
  afterAll(async () => {
    await server?.kill();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it.concurrent.for(PROGRAMS)('%s prints what it promises', async (program, { expect }) => {
    const { code, output } = await runToEnd(process.execPath, ['--import', 'tsx', program], {
      cwd: project,
    });
    expect(code, output).toBe(0);
    const promises = promisedOutputs(readFileSync(join(FIXTURES, program), 'utf8'));
    expect(unkeptPromise(output, promises), output).toBeUndefined();
  });

  it.concurrent.for(CLIENTS)(
    '%s, against holdpoint serve, prints what it promises',
    async (program, { expect }) => {
      const { code, output } = await runToEnd(process.execPath, ['--import', 'tsx', program], {
        cwd: project,
        env: { HOLDPOINT_URL: server.url },
      });
      expect(code, output).toBe(0);
      const promises = promisedOutputs(readFileSync(join(FIXTURES, program), 'utf8'));
      expect(unkeptPromise(output, promises), output).toBeUndefined();
    },
  );

  it.concurrent.for(SERVERS)('%s serves the API: a payment pauses', async (program, { expect }) => {
    const child = spawn(process.execPath, ['--import', 'tsx', program], {
      cwd: project,
      env: { ...process.env, PORT: String(await freePort()) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const base = await printed(child, /Listening on (http:\/\/\S+)/);
      const response = await fetch(`${base}/api/agent/start`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-holdpoint-user': 'ann' },
        body: JSON.stringify({ query: 'Send $200 to Jiro' }),
      });
      expect(await response.json()).toMatchObject({
        status: 'pending_approval',
        approvals: [{ hint: 'Send 200 to Jiro?' }],
      });
    } finally {
      child.kill();
    }
  });

  const shellBlocks = BLOCKS.filter((block) => block.check === 'runs');
  it.each(shellBlocks.map((block) => [name(block), block] as const))(
    '%s runs',
    async (_name, block) => {
      const env = {
        HOLDPOINT_REDIS_PREFIX: `docs-${process.pid}-${block.line}`,
        npm_config_prefer_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
      };
      if (/holdpoint serve|npm start/.test(block.text)) {
        // A block that starts a server: it listens and answers, then it is stopped.
        const child = spawn('bash', ['-eo', 'pipefail', '-c', block.text], {
          cwd: project,
          env: { ...process.env, ...env, PORT: String(await freePort()), LOG_LEVEL: 'info' },
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
        });
        try {
          const base = await printed(child, /Holdpoint listening on (http:\/\/\S+)/);
          const apps = await fetch(`${base}/api/apps`, { headers: { 'x-holdpoint-user': 'ann' } });
          expect(apps.status).toBe(200);
        } finally {
          if (child.pid) process.kill(-child.pid, 'SIGTERM');
        }
        return;
      }
      // Curl against `holdpoint serve` where the docs say localhost:3000.
      const script = block.text.replace(
        /(localhost|127\.0\.0\.1):3000/g,
        `127.0.0.1:${server.port}`,
      );
      const { code, output } = await runToEnd('bash', ['-eo', 'pipefail', '-c', script], {
        cwd: project,
        env,
      });
      expect(code, output).toBe(0);
      expect(unkeptPromise(output, promisedOutputs(block.text)), output).toBeUndefined();
    },
  );
});

/** The anchors GitHub gives a Markdown file's headings. */
function headingAnchors(file: string): string[] {
  if (!file.endsWith('.md')) return [];
  return [...readFileSync(file, 'utf8').matchAll(/^#+ (.+)$/gm)].map((heading) =>
    (heading[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-'),
  );
}

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The first match of `pattern`'s group in what `child` prints, once it prints it. */
function printed(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = pattern.exec(output)?.[1];
      if (found) resolve(found);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited ${code} before printing:\n${output}`)));
  });
}
