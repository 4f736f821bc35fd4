import { fileURLToPath } from 'node:url';
import { type HoldpointConfig, loadConfig } from '../../src/config/config.js';

/** The example apps' modules, as `holdpoint serve --app` loads a user's apps. */
export const EXAMPLE_APPS = [
  'image-studio',
  'knowledge-assistant',
  'payments',
  'picker',
  'story-flow',
].map((name) => fileURLToPath(new URL(`../../examples/${name}/app.ts`, import.meta.url)));

/** `--app` flags for every example app. */
export const EXAMPLE_APP_FLAGS = EXAMPLE_APPS.flatMap((path) => ['--app', path]);

/**
 * A test server's config: the example apps through `--app`, an ephemeral port, the
 * offline models, silent logs and the memory store (nothing written into the
 * repository), then `extra` flags (a `--store` of theirs wins); nothing from the
 * environment.
 */
export function exampleConfig(...extra: string[]): HoldpointConfig {
  const flags = ['--port', '0', '--log-level', 'silent', '--model', 'rules', '--store', 'memory'];
  return loadConfig([...EXAMPLE_APP_FLAGS, ...flags, ...extra], {});
}
