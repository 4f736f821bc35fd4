import type { z } from 'zod';
import type { SettingName, SettingValues } from './setting-types.js';
import { SETTINGS } from './settings.js';

type Settings = typeof SETTINGS;

/** The settings declared `option: true`: `createHoldpoint` takes them too, by name. */
export type OptionSetting = {
  [K in SettingName]: Settings[K] extends { readonly option?: true } ? K : never;
}[SettingName];

/** The option settings as code gives them to `createHoldpoint`, each optional. */
export type SettingOptions = { [K in OptionSetting]?: z.input<Settings[K]['schema']> };

/** The option settings' values, each setting's default where it has one and none was given. */
export type OptionSettingValues = Pick<SettingValues, OptionSetting>;

/** The names of the option settings, in `SETTINGS`' order. */
export const OPTION_SETTINGS = Object.entries(SETTINGS)
  .filter(([, entry]) => entry.option === true)
  .map(([name]) => name as OptionSetting);

/** The option settings' schemas, each optional: the part of `createHoldpoint`'s options they make. */
export const settingOptionsShape = Object.fromEntries(
  OPTION_SETTINGS.map((name) => [name, SETTINGS[name].schema.optional()]),
) as { [K in OptionSetting]: z.ZodOptional<Settings[K]['schema']> };

/** The option settings `given` sets, with every other one at its default. */
export function optionSettingValues(given: SettingOptions): OptionSettingValues {
  return Object.fromEntries(
    OPTION_SETTINGS.map((name) => {
      const entry: { default?: unknown } = SETTINGS[name];
      return [name, given[name] ?? entry.default];
    }),
  ) as OptionSettingValues;
}

/** The option settings of a read config, as `createHoldpoint` takes them. */
export function settingOptionsOf(config: Pick<SettingValues, OptionSetting>): SettingOptions {
  return Object.fromEntries(OPTION_SETTINGS.map((name) => [name, config[name]]));
}
