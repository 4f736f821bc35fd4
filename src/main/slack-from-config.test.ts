import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { notificationsFromConfig } from './notifications-from-config.js';
import { slackFromConfig } from './slack-from-config.js';

describe('slackFromConfig', () => {
  it('builds the Slack channel from the settings, its users from the directory', () => {
    const config = loadConfig(
      ['--slack-token', 'xoxb-1', '--slack-api-url', 'http://127.0.0.1:9/api/'],
      { SLACK_SIGNING_SECRET: 'secret' },
    );
    const channel = slackFromConfig(config, { slackUsers: { U1: 'alice' } });
    expect(channel).toMatchObject({
      name: 'slack',
      audience: 'people',
      signingSecret: 'secret',
      users: { U1: 'alice' },
    });
  });

  it('is off without a token, and refuses a token without its signing secret', () => {
    expect(slackFromConfig(loadConfig([], {}))).toBeUndefined();
    expect(() => loadConfig(['--slack-token', 'xoxb-1'], {})).toThrow(
      /Slack needs both --slack-token and --slack-signing-secret/,
    );
  });

  it('joins the notifications of holdpoint serve, with the directory from the config', () => {
    const directory = {
      users: { alice: { slack: 'U1' } },
      slackUsers: { U2: { id: 'bob', roles: ['finance'] } },
    };
    const config = loadConfig(
      ['--slack-token', 'xoxb-1'],
      { SLACK_SIGNING_SECRET: 'secret' },
      { notifyDirectory: directory },
    );
    const notifications = notificationsFromConfig(config);
    expect(notifications?.directory).toEqual(directory);
    expect(notifications?.channels).toEqual([
      expect.objectContaining({ name: 'slack', users: directory.slackUsers }),
    ]);
  });
});
