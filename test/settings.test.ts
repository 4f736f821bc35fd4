import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import payments from '../examples/payments/app.js';
import { USAGE } from '../src/bin/usage.js';
import { loadConfig } from '../src/config/config.js';
import { withOptionsTable, withSettingsTable } from '../src/config/settings-table.js';
import { DEFAULTS } from '../src/core/defaults.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import type { Setting } from '../src/core/settings/setting.js';
import { OPTION_SETTINGS } from '../src/core/settings/setting-options.js';
import { SETTINGS } from '../src/core/settings/settings.js';
import { createHoldpoint } from '../src/library/create-holdpoint.js';
import { holdpointFromConfig } from '../src/main/holdpoint-from-config.js';
import { exampleConfig } from './support/example-apps.js';

// Each setting is declared once, in SETTINGS; the command's flags and variables, its
// --help, DEFAULTS and the table in docs/configuration.md must say what it says.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRIES = Object.entries(SETTINGS) as [string, Setting][];
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The source files of the package (tests aside), as text. */
function sources(dir = 'src'): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(path);
    return /\.ts$/.test(entry.name) && !/\.test(-support)?\.ts$/.test(entry.name)
      ? [read(path)]
      : [];
  });
}

describe('the settings registry', () => {
  it('gives each setting its own flag and its own environment variable', () => {
    const flags = ENTRIES.map(([, entry]) => entry.flag);
    const envs = ENTRIES.map(([, entry]) => entry.env);
    expect(new Set(flags).size).toBe(ENTRIES.length);
    expect(new Set(envs).size).toBe(ENTRIES.length);
  });

  it('has defaults its own schemas accept, and they are DEFAULTS', () => {
    for (const [name, entry] of ENTRIES) {
      if (entry.default === undefined) continue;
      expect(entry.schema.safeParse(entry.default).success, name).toBe(true);
      expect(DEFAULTS[name as keyof typeof DEFAULTS], name).toEqual(entry.default);
    }
    expect(Object.keys(DEFAULTS).length).toBe(
      ENTRIES.filter(([, entry]) => entry.default !== undefined).length,
    );
  });

  it('is what the command uses when nothing is set', () => {
    const config = loadConfig([], {}) as unknown as Record<string, unknown>;
    for (const [name, entry] of ENTRIES) {
      // The model's default depends on the environment: rules models without an API key.
      const expected = name === 'model' ? 'rules' : entry.default;
      expect(config[name], name).toEqual(expected);
    }
  });
});

describe('holdpoint --help', () => {
  it('lists every setting: its flag, its environment variable and its default', () => {
    const lines = USAGE.split('\n');
    for (const [name, entry] of ENTRIES) {
      const line = lines.find((text) => text.startsWith(`  --${entry.flag} `));
      expect(line, name).toBeDefined();
      expect(line, name).toContain(entry.env);
      const shown = Array.isArray(entry.default) ? undefined : entry.default;
      if (shown !== undefined) expect(line, name).toContain(`(default ${String(shown)})`);
      else expect(line, name).not.toContain('default');
    }
  });

  it('lists no flag the registry does not have', () => {
    const settingsPart = USAGE.slice(USAGE.indexOf('\n\n'));
    const listed = [...settingsPart.matchAll(/^ {2}--([\w-]+)/gm)].map((match) => match[1]);
    expect(listed.sort()).toEqual(ENTRIES.map(([, entry]) => entry.flag).sort());
  });
});

describe('the environment', () => {
  it("the command reads the registry's variables, and the API keys' for the model, no others", () => {
    const asked = new Set<string>();
    const env = new Proxy({} as NodeJS.ProcessEnv, {
      get: (_target, name) => {
        if (typeof name === 'string') asked.add(name);
        return undefined;
      },
    });
    loadConfig([], env);
    const registry = ENTRIES.map(([, entry]) => entry.env);
    expect([...asked].sort()).toEqual([...registry, 'GEMINI_API_KEY', 'GOOGLE_API_KEY'].sort());
  });

  it('every HOLDPOINT_ variable the source or docs/configuration.md names is a setting', () => {
    const registry = new Set(ENTRIES.map(([, entry]) => entry.env));
    const named = [...sources(), read('docs/configuration.md'), read('docs/cli.md')].flatMap(
      (text) => [...text.matchAll(/\bHOLDPOINT_[A-Z_]+\b/g)].map((match) => match[0]),
    );
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((env) => !registry.has(env))).toEqual([]);
  });
});

describe('docs/configuration.md', () => {
  it('has the settings table written from the registry (npm run docs:tables)', () => {
    const doc = read('docs/configuration.md');
    expect(
      withSettingsTable(doc),
      'docs/configuration.md is stale: run `npm run docs:tables`',
    ).toBe(doc);
  });

  it('fails when the table and the registry disagree', () => {
    const doc = read('docs/configuration.md');
    const stale = doc.replace(
      '`HOLDPOINT_SOCKET_IDLE_SECONDS` | `300`',
      '`HOLDPOINT_SOCKET_IDLE_SECONDS` | `600`',
    );
    expect(stale).not.toBe(doc);
    expect(withSettingsTable(stale)).not.toBe(stale);
  });
});

describe('the settings declared options', () => {
  it('are what docs/library.md lists in its options table (npm run docs:tables)', () => {
    const doc = read('docs/library.md');
    expect(withOptionsTable(doc), 'docs/library.md is stale: run `npm run docs:tables`').toBe(doc);
    for (const name of OPTION_SETTINGS) expect(doc).toContain(`| \`${name}\` |`);
  });

  it('are createHoldpoint options, checked by the setting itself', () => {
    expect(OPTION_SETTINGS).toContain('pauseTtlSeconds');
    for (const name of OPTION_SETTINGS) {
      expect(() => createHoldpoint({ apps: [payments], [name]: { not: 'a value' } }), name).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_FAILED',
          message: expect.stringContaining(name),
        }),
      );
    }
  });

  it('reach the runtime alike from code and from a config file', async () => {
    const clock = new ManualClock(1_000_000);
    const inCode = createHoldpoint({ apps: [payments], pauseTtlSeconds: 42, clock });
    const fromConfig = (await holdpointFromConfig(exampleConfig('--pause-ttl', '42'), { clock }))
      .holdpoint;
    for (const holdpoint of [inCode, fromConfig]) {
      const paused = await holdpoint.startRun(
        { query: 'Send $200 to Jiro', app: 'payments' },
        'ann',
      );
      expect(paused).toMatchObject({ status: 'pending_approval', expiresAt: 1_000_000 + 42_000 });
      await holdpoint.close();
    }
  });
});
