import { fileURLToPath } from 'node:url';

/** The example apps' modules, as `holdpoint serve --app` loads a user's apps. */
export const EXAMPLE_APPS = ['image-studio', 'payments', 'picker'].map((name) =>
  fileURLToPath(new URL(`../../examples/${name}/app.ts`, import.meta.url)),
);

/** `--app` flags for every example app. */
export const EXAMPLE_APP_FLAGS = EXAMPLE_APPS.flatMap((path) => ['--app', path]);
