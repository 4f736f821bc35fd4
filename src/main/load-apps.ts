import { HoldpointError } from '../core/errors.js';
import { type HoldpointApp, isHoldpointApp } from '../library/define-app.js';
import { importDefault } from './import-user-module.js';

/** An app named on the command line or in a config file: a module path, or the app itself. */
export type AppSource = string | HoldpointApp;

/**
 * The apps to serve: each path is imported (relative to `baseDir`) and its default
 * export must be a `defineApp(...)`. APP_LOAD_FAILED names the module that is not.
 */
export async function loadApps(
  sources: AppSource[],
  baseDir = process.cwd(),
): Promise<HoldpointApp[]> {
  if (sources.length === 0) {
    throw new HoldpointError(
      'APP_LOAD_FAILED',
      'No apps to serve: pass --app ./path/to/app.ts (repeatable) or list them in holdpoint.config.ts.',
    );
  }
  const apps: HoldpointApp[] = [];
  for (const source of sources) {
    if (typeof source !== 'string') {
      apps.push(source);
      continue;
    }
    const app = await importDefault(source, baseDir);
    if (!isHoldpointApp(app)) {
      throw new HoldpointError(
        'APP_LOAD_FAILED',
        `${source}: its default export must be defineApp({...}) from 'holdpoint'.`,
        { file: source },
      );
    }
    apps.push(app);
  }
  return apps;
}
