import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';

// Chromium and a Vite build start slowly on a loaded 2-core machine; they are bounded by
// these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

import { holdpoint } from '../fixtures/react-host/holdpoint.js';
import { hostUrl, startHostServer } from '../fixtures/react-host/host-server.js';
import { ARTIFACTS, launchChromium } from './browser.js';
import { textOf, visible } from './wait.js';

// Issue 36, point 1, in a browser: a page (test/fixtures/ag-ui-page) runs the payments app
// over AG-UI with the official client, `@ag-ui/client`, bundled as a front end bundles it,
// against a host's server that mounts Holdpoint at /hp. The requester's page shows the
// interrupt and who may decide it; her refused approval is a RUN_ERROR; an approver's
// page, opened on the thread, is told the interrupt and approves it.
const PAGE = fileURLToPath(new URL('../fixtures/ag-ui-page/', import.meta.url));

let site: string;
let server: Server;
let browser: Browser;

beforeAll(async () => {
  site = mkdtempSync(join(tmpdir(), 'holdpoint-ag-ui-page-'));
  await build({
    root: PAGE,
    configFile: false,
    logLevel: 'error',
    build: { outDir: site, emptyOutDir: true },
  });
  server = await startHostServer(holdpoint, site);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await holdpoint.close();
  rmSync(site, { recursive: true, force: true });
});

describe('AG-UI in a browser, with the official client', () => {
  it('shows the interrupt, refuses the requester, and an approver answers it from her page', async () => {
    const ann = await browser.newPage();
    await ann.goto(`${hostUrl(server)}/?user=ann`);
    await ann.getByLabel('Ask').fill('Send $200 to Jiro');
    await ann.getByRole('button', { name: 'Send' }).click();
    await textOf(ann.getByTestId('status')).toBe('waiting');
    await textOf(ann.getByTestId('question')).toBe('Send 200 USD to Jiro?');
    await textOf(ann.getByTestId('deciders')).toBe('Decided by: approver');
    await ann.screenshot({ path: join(ARTIFACTS, 'ag-ui-page-waiting.png') });

    // The requester may not approve her own payment: the run errs, the interrupt stays.
    await ann.getByRole('button', { name: 'Approve' }).click();
    await textOf(ann.getByTestId('error')).toMatch(/^FORBIDDEN: /);
    await textOf(ann.getByTestId('status')).toBe('waiting');

    const thread = (await ann.getByTestId('thread').textContent()) ?? '';
    const maria = await browser.newPage();
    await maria.goto(`${hostUrl(server)}/?user=maria&roles=approver&thread=${thread}`);
    await textOf(maria.getByTestId('question')).toBe('Send 200 USD to Jiro?');
    await visible(maria.getByRole('button', { name: 'Approve' }));
    await maria.getByRole('button', { name: 'Approve' }).click();
    await textOf(maria.getByTestId('status')).toBe('done');
    await textOf(maria.getByTestId('answer')).toMatch(/^Sent 200 USD to Jiro \(transaction TXN-/);
    await maria.screenshot({ path: join(ARTIFACTS, 'ag-ui-page-approved.png') });
  });
});
