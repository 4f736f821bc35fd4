import type { z } from 'zod';
import type { Setting } from './setting.js';
import type { SETTINGS } from './settings.js';

type Settings = typeof SETTINGS;

/** A setting's long name: its key in a config file. */
export type SettingName = keyof Settings;

/** What a setting's value is once read. */
export type SettingValue<K extends SettingName> = z.output<Settings[K]['schema']>;

/** The settings that have a default. */
export type DefaultedSetting = {
  [K in SettingName]: Settings[K] extends Setting<z.ZodType, infer D>
    ? [D] extends [undefined]
      ? never
      : K
    : never;
}[SettingName];

/** Every setting once read: those with a default are always there. */
export type SettingValues = { [K in DefaultedSetting]: SettingValue<K> } & {
  [K in Exclude<SettingName, DefaultedSetting>]?: SettingValue<K>;
};

/** Settings as a config file gives them: any of them, by long name. */
export type SettingInputs = { [K in SettingName]?: z.input<Settings[K]['schema']> };
