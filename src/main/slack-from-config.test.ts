import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
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
});
