import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HoldpointError } from '../core/errors.js';

const TYPESCRIPT = /\.[mc]?ts$/;

let typescriptRegistered = false;

/**
 * Whether this module was loaded by Vite (Vitest), which imports TypeScript itself:
 * Vite gives transformed modules an `import.meta.env`; Node does not.
 */
const loadedByVite = (import.meta as ImportMeta & { env?: unknown }).env !== undefined;

/**
 * Lets Node import TypeScript written the usual way (`./rules.js` naming `rules.ts`),
 * once per process, through tsx, loaded only then: JavaScript apps never load it.
 * Under Vite nothing needs adding.
 */
async function allowTypescript(): Promise<void> {
  if (typescriptRegistered || loadedByVite) return;
  const { register } = await import('tsx/esm/api');
  register();
  typescriptRegistered = true;
}

/**
 * Imports a module of the user's (an app or a config file), `.ts` included, and returns
 * its default export. APP_LOAD_FAILED names the file and why.
 */
export async function importDefault(path: string, baseDir = process.cwd()): Promise<unknown> {
  const file = resolve(baseDir, path);
  if (TYPESCRIPT.test(file)) await allowTypescript();
  let loaded: { default?: unknown };
  try {
    loaded = await import(pathToFileURL(file).href);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new HoldpointError('APP_LOAD_FAILED', `Cannot load ${file}: ${why}`, { file });
  }
  return loaded.default;
}
