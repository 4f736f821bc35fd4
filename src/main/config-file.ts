import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { HoldpointError } from '../core/errors.js';
import { importDefault } from './import-user-module.js';

/** Looked for in the working directory when no `--config` is given, in this order. */
export const CONFIG_FILE_NAMES = [
  'holdpoint.config.ts',
  'holdpoint.config.mts',
  'holdpoint.config.js',
  'holdpoint.config.mjs',
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The settings of a config file: `explicit` (which must exist), else the first of
 * `CONFIG_FILE_NAMES` in `cwd`, else none. App paths in it are made absolute,
 * relative to the file. APP_LOAD_FAILED when it cannot be loaded or is not an object.
 */
export async function readConfigFile(
  explicit: string | undefined,
  cwd = process.cwd(),
): Promise<Record<string, unknown>> {
  const file = explicit
    ? resolve(cwd, explicit)
    : CONFIG_FILE_NAMES.map((name) => resolve(cwd, name)).find((path) => existsSync(path));
  if (!file) return {};
  if (!existsSync(file)) {
    throw new HoldpointError('APP_LOAD_FAILED', `No config file ${file}.`, { file });
  }
  const settings = await importDefault(file);
  if (!isRecord(settings)) {
    throw new HoldpointError(
      'APP_LOAD_FAILED',
      `${file}: its default export must be an object such as defineConfig({ apps: [...] }).`,
      { file },
    );
  }
  const apps = Array.isArray(settings.apps)
    ? settings.apps.map((app: unknown) =>
        typeof app === 'string' ? resolve(dirname(file), app) : app,
      )
    : settings.apps;
  return { ...settings, apps };
}
