// Writes the settings table of docs/configuration.md from the registry (src/core/settings).
import { readFileSync, writeFileSync } from 'node:fs';
import { withSettingsTable } from '../src/config/settings-table.js';

const file = new URL('../docs/configuration.md', import.meta.url);
writeFileSync(file, withSettingsTable(readFileSync(file, 'utf8')));
