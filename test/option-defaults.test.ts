import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { parseSync, Visitor } from 'vite';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/core/defaults.js';
import { OPTION_SETTINGS } from '../src/core/settings/setting-options.js';
import { SETTINGS } from '../src/core/settings/settings.js';
import { LIMIT_SETTING_NAMES } from '../src/transports/http/limits/limits-options.js';

// The defaults the in-process options' doc comments state ("Default 3600", "(default
// 8)", "Default 7 days", "Default `park`") are written by hand; the settings registry
// (src/core/settings/, DEFAULTS) is what the code uses. This holds the two together.

type SettingName = keyof typeof SETTINGS;

/** A declaration of options whose members' doc comments state defaults. */
interface OptionsDeclaration {
  file: string;
  /** An interface's name, or a const's (a zod object of options). */
  name: string;
  /**
   * The setting each option is, where its name is not the setting's own (a dotted path
   * for a member of a member's type: `limits.pingSeconds`).
   */
  settingOf: Record<string, SettingName>;
}

const LIMITS_BY_PATH = Object.fromEntries(
  Object.entries(LIMIT_SETTING_NAMES).map(([option, name]) => [`limits.${option}`, name]),
) as Record<string, SettingName>;

const DECLARATIONS: OptionsDeclaration[] = [
  {
    file: 'src/library/create-holdpoint.ts',
    name: 'HoldpointOptions',
    // createHoldpoint resolves retentionSeconds by DEFAULTS.sessionTtlSeconds.
    settingOf: { retentionSeconds: 'sessionTtlSeconds', ...LIMITS_BY_PATH },
  },
  {
    file: 'src/library/create-holdpoint.ts',
    name: 'AuditCheckpointOptions',
    settingOf: { everySeconds: 'auditCheckpointSeconds' },
  },
  {
    file: 'src/transports/http/limits/limits-options.ts',
    name: 'limitsOptions',
    settingOf: LIMIT_SETTING_NAMES,
  },
  {
    file: 'src/runtime/notify/notification-options.ts',
    name: 'NotificationOptions',
    settingOf: {
      maxAttempts: 'deliveryMaxAttempts',
      retentionSeconds: 'deliveryRetentionSeconds',
      'links.ttlSeconds': 'linkTtlSeconds',
    },
  },
];

/** Options whose stated default is no setting's: nothing in the registry to agree with. */
const NOT_SETTINGS = new Set([
  'HoldpointOptions.defaultApp',
  'HoldpointOptions.memoryService',
  'HoldpointOptions.logger',
  'HoldpointOptions.notifications',
  'HoldpointOptions.auditCheckpoints',
  'NotificationOptions.attemptTimeoutSeconds',
]);

/**
 * Options a setting of the same name defaults otherwise for the `holdpoint` command
 * than in process, and why; their comments state the in-process default.
 */
const IN_PROCESS_DIFFERS: Record<string, string> = {
  'HoldpointOptions.store': 'in process a memoryStore(); the command keeps runs in SQLite',
  'HoldpointOptions.allowedHosts':
    "in process any (the host's server decides); the command allows loopback names when it listens on loopback",
};

/** A default as a doc comment states it, where it stated it. */
interface StatedDefault {
  /** `HoldpointOptions.pauseTtlSeconds`, `HoldpointOptions.limits.pingSeconds`. */
  option: string;
  declaration: OptionsDeclaration;
  /** Its path inside the declaration: `pauseTtlSeconds`, `limits.pingSeconds`. */
  path: string;
  /** The words after "Default", up to the end of the phrase: `3600`, `7 days`, `` `park` ``. */
  said: string;
}

interface Comment {
  type: string;
  value: string;
  start: number;
  end: number;
}

interface Named {
  start: number;
  key?: { type: string; name?: string };
}

/** The doc comment right above `start` in `source`, if there is one. */
function docAbove(source: string, comments: Comment[], start: number): string | undefined {
  const above = comments.filter((c) => c.end <= start && source.slice(c.end, start).trim() === '');
  const doc = above.at(-1);
  if (doc?.type !== 'Block' || !doc.value.startsWith('*')) return undefined;
  return doc.value
    .split('\n')
    .map((line) => line.replace(/^\s*\*+\s?/, ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The phrase a default is stated in: up to the first `.`, `,`, `:`, `;` or `(` outside backticks. */
function phrase(text: string): string {
  let inCode = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '`') inCode = !inCode;
    else if (!inCode && /[.,:;(]/.test(char ?? '') && !/\d/.test(text[at + 1] ?? '')) {
      return text.slice(0, at).trim();
    }
  }
  return text.trim();
}

/**
 * The defaults `doc` states: "Default X." for the member it documents (`path`), and
 * "`name` (default X" for `name` inside it (a member of the member's type, or of the
 * declaration when `path` is empty).
 */
function defaultsIn(doc: string, path: string): { path: string; said: string }[] {
  const stated: { path: string; said: string }[] = [];
  const own = /\bDefault:?\s+(.+)$/.exec(doc);
  if (own?.[1] && path) stated.push({ path, said: phrase(own[1]) });
  for (const match of doc.matchAll(/`(\w+)`\s*\(default:?\s+([^)]+)\)?/g)) {
    const [, name, rest] = match;
    if (name && rest) stated.push({ path: path ? `${path}.${name}` : name, said: phrase(rest) });
  }
  return stated;
}

/** Every default the declarations' doc comments state. */
function statedDefaults(): StatedDefault[] {
  const stated: StatedDefault[] = [];
  for (const declaration of DECLARATIONS) {
    const file = fileURLToPath(new URL(`../${declaration.file}`, import.meta.url));
    const source = readFileSync(file, 'utf8');
    const parsed = parseSync(file, source, { lang: 'ts', sourceType: 'module' });
    const comments = parsed.comments as Comment[];
    let found = false;
    const add = (doc: string | undefined, path: string) => {
      for (const each of doc ? defaultsIn(doc, path) : []) {
        stated.push({ ...each, option: `${declaration.name}.${each.path}`, declaration });
      }
    };
    const members = (declarationStart: number, list: Named[]) => {
      found = true;
      const exported = source.lastIndexOf('export', declarationStart);
      const start =
        source.slice(exported, declarationStart).trim() === 'export' ? exported : declarationStart;
      add(docAbove(source, comments, start), '');
      for (const member of list) {
        if (member.key?.type === 'Identifier' && member.key.name) {
          add(docAbove(source, comments, member.start), member.key.name);
        }
      }
    };
    new Visitor({
      TSInterfaceDeclaration: (node) => {
        if (node.id.name === declaration.name) members(node.start, node.body.body as Named[]);
      },
      VariableDeclaration: (node) => {
        for (const declarator of node.declarations) {
          const { id, init } = declarator;
          if (id.type !== 'Identifier' || id.name !== declaration.name) continue;
          if (init?.type !== 'CallExpression') continue;
          const [object] = init.arguments;
          if (object?.type === 'ObjectExpression')
            members(node.start, object.properties as Named[]);
        }
      },
    }).visit(parsed.program);
    if (!found) throw new Error(`${declaration.name} is not declared in ${declaration.file}`);
  }
  return stated;
}

const SECONDS_IN: Record<string, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86_400,
  week: 604_800,
};

/**
 * What a stated default is, in the registry's terms: a number (`30`; a time in seconds
 * from `7 days`), the text in backticks (`` `park` ``), or else the words themselves
 * (`none`), which a setting states as its `defaultDoc`.
 */
function readDefault(said: string): { value: unknown } | { words: string } {
  const amount = /^(\d[\d_]*)(?:\s+(second|minute|hour|day|week)s?)?$/.exec(said);
  if (amount?.[1]) {
    const count = Number(amount[1].replaceAll('_', ''));
    return { value: count * (amount[2] ? (SECONDS_IN[amount[2]] ?? Number.NaN) : 1) };
  }
  const code = /^`([^`]+)`$/.exec(said);
  if (code?.[1]) return { value: code[1] };
  return { words: said };
}

/** Why a stated default disagrees with its setting; undefined when it agrees. */
function disagreement(stated: StatedDefault, name: SettingName): string | undefined {
  const entry = SETTINGS[name];
  const registered = (DEFAULTS as Record<string, unknown>)[name];
  const read = readDefault(stated.said);
  if ('value' in read) {
    if (isDeepStrictEqual(read.value, registered)) return undefined;
    return `${stated.option} says "Default ${stated.said}" (${JSON.stringify(read.value)}); setting ${name} defaults to ${JSON.stringify(registered)}`;
  }
  const documented = 'defaultDoc' in entry ? entry.defaultDoc : undefined;
  if (read.words === documented) return undefined;
  return `${stated.option} says "Default ${stated.said}"; setting ${name} defaults to ${JSON.stringify(registered)} (documented as ${JSON.stringify(documented)})`;
}

/** The setting an option is: named so in its declaration, or of its own name. */
function settingOf(stated: StatedDefault): SettingName | undefined {
  const named = stated.declaration.settingOf[stated.path];
  if (named) return named;
  return stated.path in SETTINGS ? (stated.path as SettingName) : undefined;
}

describe("the in-process options' stated defaults", () => {
  const stated = statedDefaults();

  it('are read from the doc comments', () => {
    const options = stated.map((each) => each.option);
    // One of each form: a number, a time in days, text in backticks, "(default N)" in a
    // member's doc and in a declaration's, and a zod object's members.
    expect(options).toEqual(
      expect.arrayContaining([
        'HoldpointOptions.sweepIntervalSeconds',
        'HoldpointOptions.retentionSeconds',
        'HoldpointOptions.store',
        'HoldpointOptions.limits.requestsPerMinute',
        'HoldpointOptions.limits.idleSeconds',
        'AuditCheckpointOptions.everySeconds',
        'limitsOptions.pingSeconds',
        'NotificationOptions.retentionSeconds',
      ]),
    );
    expect(stated.filter((each) => settingOf(each) !== undefined).length).toBeGreaterThanOrEqual(
      21,
    );
    // The settings declared options are createHoldpoint's by derivation: no comment
    // restates their defaults (library.md's options table is written from the registry).
    expect(
      options.filter((option) => OPTION_SETTINGS.some((name) => option.endsWith(`.${name}`))),
    ).toEqual([]);
  });

  it('agree with the settings registry (DEFAULTS)', () => {
    const wrong = stated.flatMap((each) => {
      const name = settingOf(each);
      if (name === undefined || each.option in IN_PROCESS_DIFFERS) return [];
      return disagreement(each, name) ?? [];
    });
    expect(wrong).toEqual([]);
  });

  it('each one is a setting, or listed here as none or as differing in process', () => {
    const unplaced = stated
      .filter((each) => settingOf(each) === undefined && !NOT_SETTINGS.has(each.option))
      .map((each) => `${each.option}: "Default ${each.said}"`);
    expect(unplaced).toEqual([]);
    // The lists name options whose comments still state a default.
    const options = new Set(stated.map((each) => each.option));
    const stale = [...NOT_SETTINGS, ...Object.keys(IN_PROCESS_DIFFERS)].filter(
      (option) => !options.has(option),
    );
    expect(stale).toEqual([]);
  });
});
