import type { Setting } from '../core/settings/setting.js';
import { SETTINGS } from '../core/settings/settings.js';

/** The comments around the table in docs/configuration.md: what is between them is written. */
const START = '<!-- settings table: written by `npm run docs:tables` from src/core/settings -->';
const END = '<!-- end of settings table -->';

/** A table cell's text: a `|` would end the cell. */
const cell = (text: string) => text.replaceAll('|', '\\|');

/** One setting's row: its config file key, flag, environment variable, default and meaning. */
function row(name: string, entry: Setting): string {
  const env = `\`${entry.env}\`${entry.multiple ? ' (comma-separated)' : ''}`;
  const byDefault =
    entry.defaultDoc ?? (entry.default === undefined ? '—' : `\`${String(entry.default)}\``);
  const cells = [`\`${name}\``, `\`--${entry.flag}\``, env, byDefault, entry.doc];
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

/** `markdown` with the settings table between its comments written anew; throws without them. */
export function withSettingsTable(markdown: string): string {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new Error(`no "${START}" … "${END}" to write the table in`);
  return `${markdown.slice(0, start)}${START}\n\n${settingsTable()}\n\n${markdown.slice(end)}`;
}
