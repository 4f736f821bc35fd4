import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';
import { HoldpointError } from '../core/errors.js';

const TYPESCRIPT = /\.[mc]?ts$/;

let typescriptRegistered = false;

/**
 * Lets Node import TypeScript written the usual way (`./rules.js` naming `rules.ts`),
 * once per process, through tsx. Under Vitest, Vite already does, so nothing is added.
 */
function allowTypescript(): void {
  if (typescriptRegistered || process.env.VITEST) return;
  register();
  typescriptRegistered = true;
}

/**
 * Imports a module of the user's (an app or a config file), `.ts` included, and returns
 * its default export. APP_LOAD_FAILED names the file and why.
 */
export async function importDefault(path: string, baseDir = process.cwd()): Promise<unknown> {
  const file = resolve(baseDir, path);
  if (TYPESCRIPT.test(file)) allowTypescript();
  let loaded: { default?: unknown };
  try {
    loaded = await import(pathToFileURL(file).href);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new HoldpointError('APP_LOAD_FAILED', `Cannot load ${file}: ${why}`, { file });
  }
  return loaded.default;
}
