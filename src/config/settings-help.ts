import type { Setting } from '../core/settings/setting.js';
import { SETTING_GROUPS } from '../core/settings/settings.js';

/** How `--help` shows a default: nothing for none or an empty list. */
function shownDefault(entry: Setting): string {
  const value = entry.default;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return '';
  return `  (default ${String(value)})`;
}

/** One setting's line: its flag and what it takes, its environment variable, its default. */
function helpLine(entry: Setting): string {
  const flag = `  --${entry.flag} ${entry.placeholder}${entry.multiple ? ' …' : ''}`;
  const env = entry.multiple ? `${entry.env}=a,b` : entry.env;
  return `${flag.padEnd(40)} ${env}${shownDefault(entry)}`;
}

/**
 * Every setting for `holdpoint --help`, by group: its flag, environment variable and
 * default (docs/configuration.md says what each does).
 */
export function settingsHelp(): string {
  return SETTING_GROUPS.map(({ heading, settings }) =>
    [`${heading}:`, ...(Object.values(settings) as Setting[]).map(helpLine)].join('\n'),
  ).join('\n');
}
