import { describe, expect, it } from 'vitest';
import type * as wire from '../http/wire/index.js';
import { describeGrant } from './grants-command.js';

const NOW = Date.parse('2026-11-28T12:00:00.000Z');

const grant = (extra: Partial<wire.Grant> = {}): wire.Grant => ({
  grant_id: 'grt_1',
  app: 'grants',
  tool_name: 'note',
  user_id: 'ann',
  scope: 'session',
  session_id: 's-1',
  approval_id: 'apr_1',
  granted_by: 'maria',
  created_at: '2026-11-28T11:00:00.000Z',
  expires_at: '2026-11-28T13:00:00.000Z',
  in_force: true,
  ...extra,
});

describe('a grant for the terminal', () => {
  it('in force: until when, the session it reaches, every call, who granted it', () => {
    expect(describeGrant(grant(), NOW)).toBe(
      'grt_1  in force until 2026-11-28T13:00:00.000Z\n' +
        '  note (grants) in session s-1 of ann, every call; granted by maria at 2026-11-28T11:00:00.000Z',
    );
  });

  it('expired, as the server says or since it answered', () => {
    expect(describeGrant(grant({ in_force: false }), NOW)).toMatch(/^grt_1 {2}expired at /);
    expect(describeGrant(grant({ expires_at: '2026-11-28T11:59:00.000Z' }), NOW)).toMatch(
      /^grt_1 {2}expired at 2026-11-28T11:59:00.000Z\n/,
    );
  });

  it('revoked: by whom and when; a user grant reaches every session, its match as JSON', () => {
    const revoked = grant({
      scope: 'user',
      match: { to: { in: ['jiro'] } },
      in_force: false,
      revoked_at: '2026-11-28T11:30:00.000Z',
      revoked_by: 'ann',
    });
    expect(describeGrant(revoked, NOW)).toBe(
      'grt_1  revoked by ann at 2026-11-28T11:30:00.000Z\n' +
        '  note (grants) in every session of ann, calls matching {"to":{"in":["jiro"]}}; granted by maria at 2026-11-28T11:00:00.000Z',
    );
  });
});
