import { z } from 'zod';
import { OPERATIONS_BY_RESOURCE, type Operation } from '../operations/index.js';

/** The comments around the table in docs/http-api.md: what is between them is written. */
const START =
  '<!-- endpoints table: written by `npm run docs:tables` from src/transports/http/operations -->';
const END = '<!-- end of endpoints table -->';

/** The parts of a JSON Schema the hints read. */
interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: unknown;
  items?: JsonSchema;
  const?: unknown;
}

/** A body or query as the request gives it (before transforms), as JSON Schema. */
const inputSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/**
 * An object's keys as `{a, b?}`: `?` for an optional one, `…` when it takes keys it
 * does not name. An array of objects among them shows its items' keys (`decisions?:[{…}]`),
 * one level deep: deeper shapes are the OpenAPI document's to tell.
 */
function objectHint(schema: JsonSchema, expandItems: boolean): string {
  const required = new Set(schema.required);
  const keys = Object.entries(schema.properties ?? {}).map(([key, property]) => {
    const name = required.has(key) ? key : `${key}?`;
    const items = property.items;
    return expandItems && property.type === 'array' && items?.type === 'object'
      ? `${name}:[${objectHint(items, false)}]`
      : name;
  });
  if (schema.additionalProperties !== false) keys.push('…');
  return `{${keys.join(', ')}}`;
}

/** A query's keys as `?a=&b=`; a key with one possible value shows it (`status=interrupted`). */
function queryHint(schema: JsonSchema): string {
  const pairs = Object.entries(schema.properties ?? {}).map(
    ([key, property]) => `${key}=${property.const === undefined ? '' : String(property.const)}`,
  );
  return `?${pairs.join('&')}`;
}

/** A table cell's text: a `|` would end the cell. */
const cell = (text: string) => text.replaceAll('|', '\\|');

/**
 * The definitions name other pages as `docs/x.md` (as the OpenAPI document and the CLI
 * show them); the table, itself in docs/, links them.
 */
const linkPages = (text: string) =>
  text.replace(
    /\bdocs\/([\w-]+\.md)(#[\w-]+)?/g,
    (_, page: string, anchor = '') => `[${page}](${page}${anchor})`,
  );

/** One operation's row: its method, path and input, its name, and what it does. */
function row(operation: Operation): string {
  const query = operation.query ? queryHint(inputSchema(operation.query)) : '';
  const body = operation.body ? inputSchema(operation.body) : undefined;
  const endpoint = `\`${operation.method.toUpperCase()} ${operation.path}${query}\``;
  const bodyHint =
    body && Object.keys(body.properties ?? {}).length > 0
      ? ` \`${objectHint(body, true)}\`${operation.optionalBody ? ' (or none)' : ''}`
      : '';
  const text = [operation.summary, operation.description].filter(Boolean).join(' ');
  const cells = [`${endpoint}${bodyHint}`, `\`${operation.name}\``, linkPages(text)];
  return `| ${cells.map(cell).join(' | ')} |`;
}

/** The endpoints table of docs/http-api.md, in Markdown: a row per operation, by resource. */
export function endpointsTable(): string {
  return [
    '| endpoint | operation | what it does |',
    '|---|---|---|',
    ...Object.values(OPERATIONS_BY_RESOURCE).flat().map(row),
  ].join('\n');
}

/** `markdown` with the endpoints table between its comments written anew; throws without them. */
export function withEndpointsTable(markdown: string): string {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new Error(`no "${START}" … "${END}" to write the table in`);
  return `${markdown.slice(0, start)}${START}\n\n${endpointsTable()}\n\n${markdown.slice(end)}`;
}
