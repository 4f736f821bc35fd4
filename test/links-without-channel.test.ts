import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startServer } from '../src/main/serve.js';
import { exampleConfig } from './support/example-apps.js';

// `holdpoint serve` with a link secret and a public URL but no notification channel
// leaves decision links off (no message would carry one, and /decide is not served): it
// says so at start, at warn, naming what is missing; with a channel it says nothing.

const LINK_FLAGS = ['--link-secret', 'l'.repeat(32), '--public-url', 'https://hp.example.com'];

/** The lines `holdpoint serve` logs at warn and above while starting with `flags`, parsed. */
async function startWarnings(...flags: string[]): Promise<{ msg: string; missing?: string }[]> {
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
  const server = await startServer(exampleConfig(...flags), { logger });
  await server.close();
  return lines.map((line) => JSON.parse(line));
}

describe('decision links configured without a channel', () => {
  it('are said at start to be off, naming the channel that is missing', async () => {
    const warned = (await startWarnings(...LINK_FLAGS)).filter((line) =>
      line.msg.startsWith('Decision links are off'),
    );
    expect(warned).toEqual([
      expect.objectContaining({ decisionLinks: 'off', missing: 'a notification channel' }),
    ]);
    expect(warned[0]?.msg).toContain('--smtp-url');
  });

  it('are not warned about once a channel sends them', async () => {
    const warned = await startWarnings(...LINK_FLAGS, '--smtp-url', 'smtp://127.0.0.1:1');
    expect(warned.filter((line) => line.msg.startsWith('Decision links'))).toEqual([]);
  });
});
