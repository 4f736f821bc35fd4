import { describe, expect, it } from 'vitest';
import { codeOf } from '../../core/errors.test-support.js';
import { devIdentity } from './dev-identity.js';

const named = (url: string) =>
  new Request(url, { headers: { 'x-holdpoint-user': 'ann', 'x-holdpoint-roles': 'admin' } });

describe('the development identity', () => {
  const identity = devIdentity();

  it('believes a name given from this machine, at one of its own names', async () => {
    for (const url of ['http://127.0.0.1:3000/api/me', 'http://localhost:3000/', 'http://[::1]/']) {
      expect(await identity({ request: named(url), remoteAddress: '127.0.0.1' })).toEqual({
        id: 'ann',
        roles: ['admin'],
      });
    }
    expect(await identity({ request: named('http://127.0.0.1/'), remoteAddress: '::1' })).toEqual({
      id: 'ann',
      roles: ['admin'],
    });
  });

  it('refuses another address, an unknown one, and another host name (DNS rebinding)', async () => {
    const refused = [
      { request: named('http://127.0.0.1:3000/'), remoteAddress: '10.0.0.7' },
      { request: named('http://127.0.0.1:3000/') },
      // A page whose name was rebound to 127.0.0.1 reaches the server from this machine.
      { request: named('http://evil.example:3000/'), remoteAddress: '127.0.0.1' },
    ];
    for (const caller of refused) expect(await codeOf(identity(caller))).toBe('UNAUTHENTICATED');
  });

  it('says nothing of a request that names nobody', async () => {
    const request = new Request('http://127.0.0.1/');
    expect(await identity({ request, remoteAddress: '127.0.0.1' })).toBeUndefined();
  });
});
