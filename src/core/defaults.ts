import type { DefaultedSetting, SettingValue } from './settings/setting-types.js';
import { SETTINGS } from './settings/settings.js';

/**
 * Every setting's default (`SETTINGS`), for the runtime, the public API and the
 * `holdpoint` command alike, so a Holdpoint made in code and one started from the
 * command line behave the same.
 */
export const DEFAULTS = Object.fromEntries(
  Object.entries(SETTINGS).flatMap(([name, entry]) =>
    'default' in entry ? [[name, entry.default]] : [],
  ),
) as unknown as { readonly [K in DefaultedSetting]: SettingValue<K> };
