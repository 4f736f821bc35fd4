import { describe, expect, it } from 'vitest';
import { allowedHostsFor } from './allowed-hosts.js';

describe('allowedHostsFor', () => {
  it("on loopback, this machine's names and the configured ones", () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.0.0.2']) {
      expect(allowedHostsFor({ host, allowedHosts: ['dev.test'] })).toEqual([
        'localhost',
        '127.0.0.1',
        '[::1]',
        host,
        'dev.test',
      ]);
    }
  });

  it('elsewhere, only the configured ones, or no check at all', () => {
    expect(allowedHostsFor({ host: '0.0.0.0', allowedHosts: [] })).toBeUndefined();
    expect(allowedHostsFor({ host: '::', allowedHosts: ['app.example'] })).toEqual(['app.example']);
  });
});
