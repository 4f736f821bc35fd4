import { describe, expect, it } from 'vitest';
import { BrowserPolicy } from './browser-policy.js';

describe('BrowserPolicy', () => {
  it("allows the server's own origin, by scheme and Host, and configured ones", () => {
    const policy = new BrowserPolicy({
      allowedOrigins: ['https://App.example.com:443/'],
      corsOrigins: ['http://cors.example:8080'],
    });
    expect(policy.allowsOrigin('http://127.0.0.1:3000', 'http://127.0.0.1:3000')).toBe(true);
    expect(policy.allowsOrigin('http://LOCALHOST:3000', 'http://localhost:3000')).toBe(true);
    expect(policy.allowsOrigin('https://127.0.0.1:3000', 'http://127.0.0.1:3000')).toBe(false);
    expect(policy.allowsOrigin('http://127.0.0.1:3001', 'http://127.0.0.1:3000')).toBe(false);
    expect(policy.allowsOrigin('https://app.example.com', 'http://127.0.0.1:3000')).toBe(true);
    expect(policy.allowsOrigin('http://cors.example:8080', 'http://127.0.0.1:3000')).toBe(true);
    expect(policy.allowsOrigin('http://evil.example', 'http://127.0.0.1:3000')).toBe(false);
    // Sandboxed frames and local files send `null`.
    expect(policy.allowsOrigin('null', 'http://127.0.0.1:3000')).toBe(false);
    expect(policy.allowsCors('http://cors.example:8080')).toBe(true);
    expect(policy.allowsCors('https://app.example.com')).toBe(false);
  });

  it('checks Host only when hosts are configured, port aside', () => {
    expect(new BrowserPolicy().allowsHost('evil.example:3000')).toBe(true);
    const policy = new BrowserPolicy({ allowedHosts: ['localhost', '::1', 'App.Example'] });
    for (const host of ['localhost', 'localhost:3000', '[::1]:3000', 'app.example:8443']) {
      expect(policy.allowsHost(host), host).toBe(true);
    }
    for (const host of ['evil.example:3000', 'localhost.evil.example', 'localhost@evil', '']) {
      expect(policy.allowsHost(host), host).toBe(false);
    }
    expect(policy.allowsHost(undefined)).toBe(false);
  });

  it('refuses options that are no origin or no host name, naming them', () => {
    for (const options of [
      { allowedOrigins: ['app.example.com'] },
      { allowedOrigins: ['https://app.example.com/path'] },
      { corsOrigins: ['ws://app.example.com'] },
      { allowedHosts: ['localhost:3000'] },
      { allowedHosts: ['http://localhost'] },
    ]) {
      expect(() => new BrowserPolicy(options), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'VALIDATION_FAILED' }),
      );
    }
    expect(() => new BrowserPolicy({ allowedHosts: ['localhost:3000'] })).toThrow(
      /allowedHosts\.0: localhost:3000 is not a host name/,
    );
  });
});
