import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { readConfigFile } from './config-file.js';
import { identityFromConfig } from './identity-from-config.js';

const FIXTURE_DIR = fileURLToPath(new URL('../../test/fixtures/config', import.meta.url));
const PICKER = fileURLToPath(new URL('../../examples/picker/app.ts', import.meta.url));

describe('holdpoint.config.ts', () => {
  it('is found in the working directory, its app paths made relative to it', async () => {
    const settings = await readConfigFile(undefined, FIXTURE_DIR);
    expect(settings).toEqual({ apps: [PICKER], pauseTtlSeconds: 120 });
  });

  it('sits below flags and environment variables, above defaults', async () => {
    const file = await readConfigFile(undefined, FIXTURE_DIR);
    expect(loadConfig([], {}, file)).toMatchObject({ apps: [PICKER], pauseTtlSeconds: 120 });
    expect(loadConfig(['--pause-ttl', '60'], {}, file).pauseTtlSeconds).toBe(60);
    expect(loadConfig([], { HOLDPOINT_PAUSE_TTL_SECONDS: '90' }, file).pauseTtlSeconds).toBe(90);
    expect(loadConfig(['--app', './a.ts', '--app', './b.js'], {}, file).apps).toEqual([
      './a.ts',
      './b.js',
    ]);
    expect(loadConfig([], { HOLDPOINT_APPS: './a.ts,./b.js' }, file).apps).toEqual([
      './a.ts',
      './b.js',
    ]);
  });

  it('is optional, but one named with --config must exist', async () => {
    expect(await readConfigFile(undefined, fileURLToPath(new URL('.', import.meta.url)))).toEqual(
      {},
    );
    await expect(readConfigFile('./nope.config.ts', FIXTURE_DIR)).rejects.toMatchObject({
      code: 'APP_LOAD_FAILED',
    });
  });

  it('refuses settings it does not know, and bad values', () => {
    expect(() => loadConfig([], {}, { apps: [], pauseTTLSeconds: 5 })).toThrow(
      'Unknown setting pauseTTLSeconds',
    );
    expect(() => loadConfig([], {}, { apps: [], port: 'many' })).toThrow(/Invalid setting port/);
  });
});

describe('sign-in settings', () => {
  const JWT = [
    '--auth',
    'jwt',
    '--jwt-jwks-url',
    'https://idp.example/jwks',
    '--jwt-issuer',
    'https://idp.example',
    '--jwt-audience',
    'holdpoint',
  ];

  it('give the jwt identity its OpenID Connect sign-in: flags, then environment, then file', () => {
    const config = loadConfig(
      [...JWT, '--oidc-client-id', 'holdpoint-web', '--oidc-scope', 'openid roles'],
      {
        HOLDPOINT_OIDC_CLIENT_ID: 'from-env',
        HOLDPOINT_OIDC_CLIENT_SECRET: 'env-secret',
        HOLDPOINT_OIDC_REDIRECT_URL: 'https://holdpoint.example/auth/callback',
      },
      { oidcScope: 'openid', oidcCookieSecret: 'c'.repeat(32) },
    );
    expect(identityFromConfig(config)).toMatchObject({
      mode: 'jwt',
      audience: 'holdpoint',
      oidc: {
        clientId: 'holdpoint-web',
        clientSecret: 'env-secret',
        redirectUrl: 'https://holdpoint.example/auth/callback',
        scope: 'openid roles',
        cookieSecret: 'c'.repeat(32),
      },
    });
    expect(identityFromConfig(loadConfig(JWT, {}))).not.toHaveProperty('oidc');
  });

  it('refuses OpenID Connect settings outside jwt, or without a client id', () => {
    expect(() => loadConfig(['--oidc-client-id', 'holdpoint-web'], {})).toThrow(
      /oidcClientId: OpenID Connect sign-in \(--oidc-client-id\) needs --auth jwt/,
    );
    expect(() => loadConfig([...JWT, '--oidc-client-secret', 's'], {})).toThrow(
      /the --oidc-\* settings need --oidc-client-id/,
    );
    expect(() =>
      loadConfig([...JWT, '--oidc-client-id', 'web', '--oidc-cookie-secret', 'short'], {}),
    ).toThrow(/oidcCookieSecret: at least 32 characters/);
  });
});

describe('browser settings', () => {
  it('repeat as flags, separate with commas in the environment, and are normalized', () => {
    const flags = loadConfig(
      ['--allowed-origin', 'https://a.example/', '--allowed-origin', 'http://b.example:8080'],
      {},
    );
    expect(flags.allowedOrigins).toEqual(['https://a.example', 'http://b.example:8080']);
    const env = loadConfig([], {
      HOLDPOINT_ALLOWED_ORIGINS: 'https://a.example, https://c.example',
      HOLDPOINT_ALLOWED_HOSTS: 'dev.test,::1',
      HOLDPOINT_CORS_ORIGINS: 'http://localhost:5173',
    });
    expect(env).toMatchObject({
      allowedOrigins: ['https://a.example', 'https://c.example'],
      allowedHosts: ['dev.test', '[::1]'],
      corsOrigins: ['http://localhost:5173'],
    });
    const file = { corsOrigins: ['https://file.example'] };
    expect(loadConfig([], {}, file).corsOrigins).toEqual(['https://file.example']);
    expect(loadConfig(['--cors-origin', 'https://flag.example'], {}, file).corsOrigins).toEqual([
      'https://flag.example',
    ]);
    expect(loadConfig([], {})).toMatchObject({
      allowedOrigins: [],
      allowedHosts: [],
      corsOrigins: [],
    });
  });

  it('refuses an origin with a path and a host with a port', () => {
    expect(() => loadConfig(['--allowed-origin', 'https://a.example/app'], {})).toThrow(
      /Invalid setting allowedOrigins\.0/,
    );
    expect(() => loadConfig(['--allowed-host', 'localhost:3000'], {})).toThrow(
      /Invalid setting allowedHosts\.0/,
    );
  });
});

describe('limit settings', () => {
  it('come from flags, the environment or the file, else defaults; 0 turns one off', () => {
    expect(loadConfig([], {})).toMatchObject({
      requestsPerMinute: 3000,
      runsPerMinute: 1200,
      streamsPerSocket: 8,
      socketsPerPrincipal: 16,
      socketPingSeconds: 30,
      socketIdleSeconds: 300,
    });
    const flags = loadConfig(
      [
        '--rate-limit',
        '100',
        '--run-rate-limit',
        '0',
        '--streams-per-socket',
        '2',
        '--sockets-per-principal',
        '4',
        '--socket-ping',
        '0.5',
        '--socket-idle',
        '0',
      ],
      {},
    );
    expect(flags).toMatchObject({
      requestsPerMinute: 100,
      runsPerMinute: 0,
      streamsPerSocket: 2,
      socketsPerPrincipal: 4,
      socketPingSeconds: 0.5,
      socketIdleSeconds: 0,
    });
    const env = loadConfig([], {
      HOLDPOINT_RATE_LIMIT: '7',
      HOLDPOINT_RUN_RATE_LIMIT: '3',
      HOLDPOINT_STREAMS_PER_SOCKET: '1',
      HOLDPOINT_SOCKETS_PER_PRINCIPAL: '2',
      HOLDPOINT_SOCKET_PING_SECONDS: '5',
      HOLDPOINT_SOCKET_IDLE_SECONDS: '60',
    });
    expect(env).toMatchObject({
      requestsPerMinute: 7,
      runsPerMinute: 3,
      streamsPerSocket: 1,
      socketsPerPrincipal: 2,
      socketPingSeconds: 5,
      socketIdleSeconds: 60,
    });
    expect(loadConfig(['--run-rate-limit', '9'], {}, { runsPerMinute: 5 }).runsPerMinute).toBe(9);
    expect(loadConfig([], {}, { runsPerMinute: 5 }).runsPerMinute).toBe(5);
  });

  it('refuses negative or fractional counts', () => {
    expect(() => loadConfig(['--rate-limit=-1'], {})).toThrow(/Invalid setting requestsPerMinute/);
    expect(() => loadConfig(['--streams-per-socket', '1.5'], {})).toThrow(
      /Invalid setting streamsPerSocket/,
    );
    expect(() => loadConfig(['--socket-idle', 'soon'], {})).toThrow(
      /Invalid setting socketIdleSeconds/,
    );
  });
});

describe('flags', () => {
  it('an unknown flag or a flag without its value is VALIDATION_FAILED, not a crash', () => {
    expect(() => loadConfig(['--prot', '3000'], {})).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        message: expect.stringMatching(/--prot/),
      }),
    );
    expect(() => loadConfig(['--port'], {})).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
  });
});
