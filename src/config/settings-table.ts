import type { Setting } from '../core/settings/setting.js';
import { OPTION_SETTINGS } from '../core/settings/setting-options.js';
import { SETTINGS } from '../core/settings/settings.js';

/** The comments around the table in docs/configuration.md: what is between them is written. */
const START = '<!-- settings table: written by `npm run docs:tables` from src/core/settings -->';
const END = '<!-- end of settings table -->';
const OPTIONS_START =
  '<!-- options table: written by `npm run docs:tables` from the settings declared `option: true` -->';
const OPTIONS_END = '<!-- end of options table -->';

/** A table cell's text: a `|` would end the cell. */
const cell = (text: string) => text.replaceAll('|', '\\|');

/** A setting's default as the tables show it. */
const byDefault = (entry: Setting) =>
  entry.defaultDoc ?? (entry.default === undefined ? '—' : `\`${String(entry.default)}\``);

/** One setting's row: its config file key, flag, environment variable, default and meaning. */
function row(name: string, entry: Setting): string {
  const env = `\`${entry.env}\`${entry.multiple ? ' (comma-separated)' : ''}`;
  const cells = [`\`${name}\``, `\`--${entry.flag}\``, env, byDefault(entry), entry.doc];
  return `| ${cells.map(cell).join(' | ')} |`;
}

/** The settings table of docs/configuration.md, in Markdown, from `SETTINGS`. */
export function settingsTable(): string {
  return [
    '| setting (config file) | flag | environment | default | meaning |',
    '|---|---|---|---|---|',
    ...Object.entries(SETTINGS).map(([name, entry]) => row(name, entry as Setting)),
  ].join('\n');
}

/**
 * The table of docs/library.md of the settings `createHoldpoint` takes too (declared
 * `option: true`): each by its name, default and meaning.
 */
export function optionsTable(): string {
  return [
    '| option | default | meaning |',
    '|---|---|---|',
    ...OPTION_SETTINGS.map((name) => {
      const entry: Setting = SETTINGS[name];
      return `| ${[`\`${name}\``, byDefault(entry), entry.doc].map(cell).join(' | ')} |`;
    }),
  ].join('\n');
}

/** `markdown` with `table` written anew between the comments `start` and `end`; throws without them. */
function withTable(markdown: string, start: string, end: string, table: string): string {
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(end);
  if (from < 0 || to < from) throw new Error(`no "${start}" … "${end}" to write the table in`);
  return `${markdown.slice(0, from)}${start}\n\n${table}\n\n${markdown.slice(to)}`;
}

/** `markdown` (docs/configuration.md) with the settings table written anew. */
export function withSettingsTable(markdown: string): string {
  return withTable(markdown, START, END, settingsTable());
}

/** `markdown` (docs/library.md) with the table of the settings that are options written anew. */
export function withOptionsTable(markdown: string): string {
  return withTable(markdown, OPTIONS_START, OPTIONS_END, optionsTable());
}
