import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const EXAMPLES = fileURLToPath(new URL('../examples', import.meta.url));

/**
 * What an example may import: the public API (`holdpoint`, `holdpoint/types` and `holdpoint/workflows`), ADK and its types, zod, Node, the test
 * runner, and the libraries an app needs for its own work, as any user's app would
 * (the knowledge assistant's PDF and article parsers) — never Holdpoint's insides.
 */
const ALLOWED_PACKAGES = new Set([
  'holdpoint',
  'holdpoint/types',
  'holdpoint/workflows',
  '@google/adk',
  '@google/genai',
  'zod',
  'vitest',
  'unpdf',
  '@mozilla/readability',
  'linkedom',
]);

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

/** The import specifiers of a module's source. */
function importsOf(source: string): string[] {
  return [...source.matchAll(SPECIFIER)].map((match) => match[1] ?? '');
}

/** Why `specifier`, imported by `file`, is not allowed in an example; undefined when it is. */
function forbidden(file: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) {
    const target = resolve(dirname(file), specifier);
    return relative(EXAMPLES, target).startsWith('..') ? 'reaches outside examples/' : undefined;
  }
  if (specifier.startsWith('node:') || builtinModules.includes(specifier)) return undefined;
  return ALLOWED_PACKAGES.has(specifier) ? undefined : 'is not the public API';
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return /\.[mc]?[jt]sx?$/.test(entry.name) ? [path] : [];
  });
}

describe('examples use the public API only', () => {
  it('no module in examples/ imports a non-public path', () => {
    const files = sourcesUnder(EXAMPLES);
    expect(files.length).toBeGreaterThan(10);
    const violations = files.flatMap((file) =>
      importsOf(readFileSync(file, 'utf8')).flatMap((specifier) => {
        const why = forbidden(file, specifier);
        return why ? [`${relative(EXAMPLES, file)}: '${specifier}' ${why}`] : [];
      }),
    );
    expect(violations).toEqual([]);
  });

  it('the check catches internals, deep package paths and escapes', () => {
    const file = join(EXAMPLES, 'payments', 'app.ts');
    const source = [
      "import { once } from 'holdpoint';",
      "import { RedisStore } from '../../src/store/redis/redis-store.js';",
      "import type { X } from 'holdpoint/dist/runtime/x.js';",
      "const later = await import('../shared/llm-history.js');",
      "export { y } from './format-money.js';",
    ].join('\n');
    expect(importsOf(source).map((specifier) => forbidden(file, specifier))).toEqual([
      undefined,
      'reaches outside examples/',
      'is not the public API',
      undefined,
      undefined,
    ]);
  });
});
