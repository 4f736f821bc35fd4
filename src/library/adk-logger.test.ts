import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import payments from '../../examples/payments/app.js';
import { createHoldpoint } from './create-holdpoint.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs one approval cycle with a logger at `level`; returns what it and the console got. */
async function cycle(level: string) {
  const logged: Record<string, unknown>[] = [];
  const logger = pino({ level }, { write: (line: string) => logged.push(JSON.parse(line)) });
  const printed: string[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
  }
  const holdpoint = createHoldpoint({ apps: [payments], logger, sweepIntervalSeconds: false });
  const paused = await holdpoint.start({ query: 'Send $5 to Ann', userId: 'u' });
  await holdpoint.resume({
    sessionId: paused.sessionId,
    decidedBy: { id: 'maria', roles: ['approver'] },
    approved: true,
  });
  await holdpoint.close();
  vi.restoreAllMocks();
  return { adk: logged.filter((line) => line.component === 'adk'), printed };
}

describe("ADK's own log lines", () => {
  it('go through the server logger as JSON, at its level, never to the console', async () => {
    const debug = await cycle('debug');
    expect(debug.adk.length).toBeGreaterThan(0);
    expect(debug.adk[0]).toMatchObject({ level: 20, component: 'adk', msg: expect.any(String) });
    expect(debug.printed).toEqual([]);
    const info = await cycle('info');
    expect(info.adk).toEqual([]);
    expect(info.printed).toEqual([]);
  });
});
