// Writes the tables the docs derive from declarations: the settings table of
// docs/configuration.md and the options table of docs/library.md (src/core/settings),
// and the endpoints table of docs/http-api.md (src/transports/http/operations).
import { readFileSync, writeFileSync } from 'node:fs';
import { withOptionsTable, withSettingsTable } from '../src/config/settings-table.js';
import { withEndpointsTable } from '../src/transports/http/openapi/endpoints-table.js';

for (const [page, withTable] of [
  ['configuration.md', withSettingsTable],
  ['library.md', withOptionsTable],
  ['http-api.md', withEndpointsTable],
] as const) {
  const file = new URL(`../docs/${page}`, import.meta.url);
  writeFileSync(file, withTable(readFileSync(file, 'utf8')));
}
