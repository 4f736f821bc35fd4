import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { Browser } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Chromium and a Vite build start slowly on a loaded 2-core machine; they are bounded by
// these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

import { holdpoint } from '../fixtures/react-host/holdpoint.js';
import { hostUrl, startHostServer } from '../fixtures/react-host/host-server.js';
import { ARTIFACTS, launchChromium } from './browser.js';
import { textOf, visible } from './wait.js';

// A team's own React app (test/fixtures/react-host, not web/) embeds Holdpoint's approvals
// with holdpoint/react as the package ships it (dist/react, built by `npm run build`): its
// server mounts the library at /hp and says who calls by headers the app sends. In
// Chromium, an approver sees the live count and the inbox, reviews a real pause of the
// payments app, approves it, and the run goes on.
const HOST = fileURLToPath(new URL('../fixtures/react-host/', import.meta.url));
const BUILT_REACT = fileURLToPath(new URL('../../dist/react/index.js', import.meta.url));
const STYLESHEET = fileURLToPath(new URL('../../react/styles.css', import.meta.url));

let site: string;
let server: Server;
let browser: Browser;

beforeAll(async () => {
  site = mkdtempSync(join(tmpdir(), 'holdpoint-react-host-'));
  await build({
    root: HOST,
    configFile: false,
    logLevel: 'error',
    plugins: [react()],
    // The package as it ships: its exports map these two names to these files.
    resolve: {
      alias: [
        { find: /^holdpoint\/react$/, replacement: BUILT_REACT },
        { find: /^holdpoint\/react\/styles\.css$/, replacement: STYLESHEET },
      ],
    },
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

describe('holdpoint/react in a host app', () => {
  it('shows an approver her approvals live, and decides one on the real server', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`${hostUrl(server)}/?user=maria&roles=approver`);
    await textOf(page.getByTestId('waiting')).toBe('0 waiting for you');
    await visible(page.getByText('Nothing waits for you'));

    // Ann asks for a payment: Maria's page learns of it by push, without reloading.
    const paused = await holdpoint.startRun({ query: 'Send $200 to Jiro' }, 'ann');
    if (paused.status !== 'pending_approval') throw new Error('expected a pause');
    await textOf(page.getByTestId('waiting')).toBe('1 waiting for you');
    const review = page.getByRole('button', { name: 'Review Process payment (payments)' });
    await visible(review);
    await review.click();

    const dialog = page.getByRole('dialog');
    await visible(dialog);
    await textOf(dialog.getByRole('heading', { level: 2 })).toBe('Process payment');
    await textOf(dialog.locator('.hp-arg-list')).toContain('Jiro');
    await page.screenshot({ path: join(ARTIFACTS, 'react-host-dialog.png') });
    await dialog.getByRole('button', { name: 'Approve' }).click();

    await textOf(page.getByRole('status').filter({ hasText: 'Approved' })).toContain(
      'The run resumed and completed.',
    );
    await textOf(page.getByTestId('waiting')).toBe('0 waiting for you');
    await page.screenshot({ path: join(ARTIFACTS, 'react-host-decided.png') });

    // On the server: Maria's decision, through the host's mount, resumed the same run.
    const session = await holdpoint.getSession(paused.sessionId);
    expect(session.run).toMatchObject({ invocationId: paused.invocationId, status: 'completed' });
    expect(session.pause?.decisions).toMatchObject([
      { approvalId: paused.approvals[0]?.approvalId, approved: true, decidedBy: 'maria' },
    ]);
    await page.close();
  });

  it('opens one approval by its id, and edits it: the run pays what the approver changed', async () => {
    const paused = await holdpoint.startRun({ query: 'Send $300 to Noa' }, 'ann');
    if (paused.status !== 'pending_approval') throw new Error('expected a pause');
    const approvalId = paused.approvals[0]?.approvalId ?? '';
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${hostUrl(server)}/?user=maria&roles=approver&approval=${approvalId}`);
    await textOf(page.getByTestId('state')).toBe('Waiting, yours to decide');

    const dialog = page.getByRole('dialog');
    await visible(dialog);
    await dialog.getByRole('button', { name: 'Edit' }).click();
    await dialog.getByLabel('Amount').fill('250');
    // What the edit changes is shown before it is sent.
    await textOf(dialog.getByRole('list', { name: /changes/i })).toContain('250');
    await page.screenshot({ path: join(ARTIFACTS, 'react-host-edit-390.png') });
    await dialog.getByRole('button', { name: 'Approve with changes' }).click();

    // The decision resumed the run to its end, as the decision's answer says.
    await textOf(page.getByTestId('state')).toBe('Decided: the run is completed');
    const session = await holdpoint.getSession(paused.sessionId);
    expect(session.run?.status).toBe('completed');
    expect(session.pause?.decisions).toMatchObject([
      { approvalId, approved: true, decidedBy: 'maria', editedArgs: { amount: 250 } },
    ]);
    await page.close();
  });

  it('offers nothing to decide to someone the approval does not ask', async () => {
    const paused = await holdpoint.startRun({ query: 'Send $50 to Kai' }, 'ann');
    if (paused.status !== 'pending_approval') throw new Error('expected a pause');
    const page = await browser.newPage();
    await page.goto(`${hostUrl(server)}/?user=eve`);
    await visible(page.getByText('Nothing waits for you'));
    await textOf(page.getByTestId('waiting')).toBe('0 waiting for you');
    await holdpoint.cancelPause({ sessionId: paused.sessionId }, 'ann');
    await page.close();
  });
});
