import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  endpointsTable,
  withEndpointsTable,
} from '../src/transports/http/openapi/endpoints-table.js';
import { OPERATIONS_BY_RESOURCE } from '../src/transports/http/operations/index.js';

// docs/http-api.md's endpoints table is written from the operations' definitions, as the
// routes and the OpenAPI document are: a definition changed without the table is a failure.

const DOC = new URL('../docs/http-api.md', import.meta.url);
const STALE = 'docs/http-api.md is stale: run `npm run docs:tables`';

describe("docs/http-api.md's endpoints table", () => {
  it('is written from the operations (npm run docs:tables)', () => {
    const doc = readFileSync(DOC, 'utf8');
    expect(withEndpointsTable(doc), STALE).toBe(doc);
  });

  it('fails when a definition and the table disagree', () => {
    const doc = readFileSync(DOC, 'utf8');
    const [operation] = OPERATIONS_BY_RESOURCE.runs;
    if (!operation) throw new Error('no runs operation');
    const stale = doc.replace(operation.summary, `${operation.summary} (changed)`);
    expect(stale).not.toBe(doc);
    expect(withEndpointsTable(stale)).not.toBe(stale);
  });

  it('has a row per operation, with its input as its schemas declare it', () => {
    const table = endpointsTable();
    for (const operation of Object.values(OPERATIONS_BY_RESOURCE).flat()) {
      expect(table).toContain(`\`${operation.method.toUpperCase()} ${operation.path}`);
      expect(table).toContain(`| \`${operation.name}\` |`);
    }
    expect(table).toContain('`POST /api/agent/cancel` `{session_id, user_id?, reason?}`');
    expect(table).toContain('`GET /api/runs?status=interrupted&limit=&cursor=`');
    expect(table).toContain('decisions?:[{approval_id, approved, reason?,');
  });
});
