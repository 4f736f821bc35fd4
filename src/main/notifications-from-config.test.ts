import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { codeOf } from '../core/errors.test-support.js';
import { notificationsFromConfig } from './notifications-from-config.js';

const SECRET = 'a-webhook-secret-of-at-least-32-characters';
const LINK_SECRET = 'a-decision-link-secret-of-32-characters';
const dir = mkdtempSync(join(tmpdir(), 'hp-directory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function written(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('notifications from the settings', () => {
  it('are off without a channel', () => {
    expect(notificationsFromConfig(loadConfig([], {}))).toBeUndefined();
  });

  it('make a signed webhook channel per URL, with the retry and retention settings', () => {
    const config = loadConfig(
      [
        '--webhook-url',
        'https://a.example.com/hooks',
        '--webhook-url',
        'https://b.example.com/hooks',
        '--delivery-max-attempts',
        '3',
      ],
      { HOLDPOINT_WEBHOOK_SECRET: SECRET, HOLDPOINT_DELIVERY_RETENTION_SECONDS: '3600' },
    );
    const notifications = notificationsFromConfig(config);
    expect(notifications?.channels.map((c) => [c.name, c.audience])).toEqual([
      ['webhook', 'endpoint'],
      ['webhook-2', 'endpoint'],
    ]);
    expect(notifications).toMatchObject({ maxAttempts: 3, retentionSeconds: 3600 });
    const fromEnv = loadConfig([], {
      HOLDPOINT_WEBHOOK_URLS: 'https://a.example.com/hooks,https://b.example.com/hooks',
      HOLDPOINT_WEBHOOK_SECRET: SECRET,
    });
    expect(notificationsFromConfig(fromEnv)?.channels).toHaveLength(2);
    // The same receiver named twice is one channel: it gets each event once.
    const twice = loadConfig([], {
      HOLDPOINT_WEBHOOK_URLS: 'https://a.example.com/hooks,https://a.example.com/hooks',
      HOLDPOINT_WEBHOOK_SECRET: SECRET,
    });
    expect(notificationsFromConfig(twice)?.channels.map((c) => c.name)).toEqual(['webhook']);
  });

  it('refuse webhooks without a secret, or with a short one', async () => {
    const unsigned = async () => loadConfig(['--webhook-url', 'https://a.example.com/hooks'], {});
    await expect(unsigned()).rejects.toThrow(/--webhook-url needs --webhook-secret/);
    expect(await codeOf(unsigned())).toBe('VALIDATION_FAILED');
    expect(() => loadConfig(['--webhook-secret', 'short'], {})).toThrow(/webhookSecret/);
  });

  it('refuse addresses in another scheme than the one they are reached by', () => {
    for (const [flag, url, scheme] of [
      ['--webhook-url', 'ftp://a.example.com/hooks', 'https'],
      ['--public-url', 'javascript:alert(1)//', 'https'],
      ['--slack-api-url', 'file:///etc/passwd', 'https'],
      ['--smtp-url', 'https://mail.example.com', 'smtps'],
    ]) {
      expect(() => loadConfig([flag as string, url as string], {})).toThrow(
        new RegExp(`${scheme}://`),
      );
    }
  });

  it('mail through --smtp-url from --mail-from, with signed links from --public-url and --link-secret', () => {
    const config = loadConfig(
      [
        '--smtp-url',
        'smtp://mail.example.com:587',
        '--mail-from',
        'Approvals <hp@example.com>',
        '--public-url',
        'https://hp.example.com',
        '--link-ttl',
        '600',
      ],
      { HOLDPOINT_LINK_SECRET: LINK_SECRET },
    );
    const notifications = notificationsFromConfig(config);
    expect(notifications?.channels.map((c) => [c.name, c.audience])).toEqual([['email', 'people']]);
    expect(notifications?.links).toEqual({
      baseUrl: 'https://hp.example.com',
      secret: LINK_SECRET,
      ttlSeconds: 600,
    });
    const unlinked = loadConfig(['--smtp-url', 'smtp://mail.example.com:587'], {});
    expect(notificationsFromConfig(unlinked)?.links).toBeUndefined();
    expect(() => loadConfig([], { HOLDPOINT_LINK_SECRET: LINK_SECRET })).toThrow(
      /--link-secret needs --public-url/,
    );
    expect(() => loadConfig(['--link-secret', 'short', '--public-url', 'https://x'], {})).toThrow(
      /linkSecret/,
    );
  });

  it('read the directory from a JSON file, or take the object a config file gives', () => {
    const directory = {
      users: { alice: { email: 'alice@example.com' } },
      roles: { cfo: { email: 'cfo@example.com' } },
    };
    const file = written('directory.json', JSON.stringify(directory));
    const flags = ['--webhook-url', 'https://a.example.com/hooks', '--notify-directory', file];
    const env = { HOLDPOINT_WEBHOOK_SECRET: SECRET };
    expect(notificationsFromConfig(loadConfig(flags, env))?.directory).toEqual(directory);
    const fromFile = loadConfig(['--webhook-url', 'https://a.example.com/hooks'], env, {
      notifyDirectory: directory,
    });
    expect(notificationsFromConfig(fromFile)?.directory).toEqual(directory);

    const broken = written('broken.json', '{ not json');
    const wrong = written('wrong.json', JSON.stringify({ people: {} }));
    for (const [path, why] of [
      [broken, /Cannot read the directory .*broken\.json \(not JSON\)/],
      [wrong, /wrong\.json: .*unrecognized/i],
      [join(dir, 'missing.json'), /missing\.json \(ENOENT\)/],
    ] as const) {
      const config = loadConfig(
        ['--webhook-url', 'https://a.example.com/hooks', '--notify-directory', path],
        env,
      );
      expect(() => notificationsFromConfig(config)).toThrow(why);
    }
  });
});
