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

describe('the development identity and a body that names its user', () => {
  const identity = devIdentity();
  const namedInBody = (id?: string) => {
    const asked = { times: 0 };
    return {
      asked,
      bodyUser: async () => {
        asked.times++;
        return id;
      },
    };
  };

  it('asks the body only when no header or cookie names anyone', async () => {
    const body = namedInBody('fabricio');
    const request = new Request('http://127.0.0.1:3000/api/agent/start', { method: 'POST' });
    expect(await identity({ request, remoteAddress: '127.0.0.1', ...body })).toEqual({
      id: 'fabricio',
      roles: [],
    });
    const unread = namedInBody('fabricio');
    const withHeader = named('http://127.0.0.1/');
    expect(
      await identity({ request: withHeader, remoteAddress: '127.0.0.1', ...unread }),
    ).toMatchObject({ id: 'ann' });
    expect(unread.asked.times).toBe(0);
    const nobody = namedInBody(undefined);
    expect(await identity({ request, remoteAddress: '127.0.0.1', ...nobody })).toBeUndefined();
  });

  it('believes a body no more than a header: from another machine it is refused', async () => {
    const request = new Request('http://127.0.0.1:3000/api/agent/start', { method: 'POST' });
    expect(
      await codeOf(identity({ request, remoteAddress: '10.0.0.7', ...namedInBody('fabricio') })),
    ).toBe('UNAUTHENTICATED');
  });
});
