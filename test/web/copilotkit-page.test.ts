import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { Browser } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';

// Installing CopilotKit, a Vite build and Chromium take a while on a loaded 2-core
// machine; they are bounded by these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 600_000 });

import { holdpoint } from '../fixtures/react-host/holdpoint.js';
import { hostUrl, startHostServer } from '../fixtures/react-host/host-server.js';
import { ARTIFACTS, launchChromium } from './browser.js';
import { textOf, visible } from './wait.js';

// Issue 36, point 1, with a front-end library: a page built with CopilotKit's hooks
// (test/fixtures/copilotkit-page: `useInterrupt`, `useAgent`) runs the payments app over
// AG-UI against a host that mounts Holdpoint at /hp. CopilotKit is installed for this test
// alone, into a project of its own, as a team's front end would have it (it is not among
// Holdpoint's dependencies: 844 packages for this one page).
const PAGE = fileURLToPath(new URL('../fixtures/copilotkit-page/', import.meta.url));
const FRONT_END = ['@copilotkit/react-core@1.74.0', 'react@19.3.1', 'react-dom@19.3.1'];

let project: string;
let server: Server;
let browser: Browser;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'holdpoint-copilotkit-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  execFileSync(
    'npm',
    ['install', ...FRONT_END, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
    { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  cpSync(PAGE, project, { recursive: true });
  await build({
    root: project,
    configFile: false,
    logLevel: 'error',
    plugins: [react()],
    build: { outDir: join(project, 'site'), emptyOutDir: true },
  });
  server = await startHostServer(holdpoint, join(project, 'site'));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await holdpoint.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('AG-UI with CopilotKit’s hooks, in Chromium', () => {
  it('useInterrupt shows the pause; the requester is refused, an approver answers it', async () => {
    const ann = await browser.newPage();
    await ann.goto(`${hostUrl(server)}/?user=ann`);
    await ann.getByLabel('Ask').fill('Send $200 to Jiro');
    await ann.getByRole('button', { name: 'Send' }).click();
    await textOf(ann.getByTestId('question')).toBe('Send 200 USD to Jiro?');
    await ann.screenshot({ path: join(ARTIFACTS, 'copilotkit-page-waiting.png') });
    await ann.getByRole('button', { name: 'Approve' }).click();
    await textOf(ann.getByTestId('error')).toMatch(/^FORBIDDEN: /);

    const thread = (await ann.getByTestId('thread').textContent()) ?? '';
    const maria = await browser.newPage();
    await maria.goto(`${hostUrl(server)}/?user=maria&roles=approver&thread=${thread}`);
    await textOf(maria.getByTestId('question')).toBe('Send 200 USD to Jiro?');
    await visible(maria.getByRole('button', { name: 'Approve' }));
    await maria.getByRole('button', { name: 'Approve' }).click();
    await textOf(maria.getByTestId('answer')).toMatch(/^Sent 200 USD to Jiro \(transaction TXN-/);
    await maria.screenshot({ path: join(ARTIFACTS, 'copilotkit-page-approved.png') });
  });
});
