import { humanizeToolName } from './approval-request.js';

/**
 * How a field is entered: text, a number, a checkbox, a choice among fixed values, or JSON
 * text for anything the form does not model (objects, arrays, unions).
 */
export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'json';

/** One top-level field of a JSON Schema object, as a form shows it. */
export interface SchemaField {
  name: string;
  label: string;
  kind: FieldKind;
  /** The values an `enum` field offers. */
  options?: unknown[];
  required: boolean;
  description?: string;
  /** The schema's own bounds, checked before sending as a convenience (the server decides). */
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

/** What a person typed or picked for each field: text, or a checkbox's state. */
export type Draft = Record<string, string | boolean>;

type Schema = Record<string, unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isScalar = (value: unknown) =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

const numberOf = (value: unknown) => (typeof value === 'number' ? value : undefined);

/** The one type a schema names (`['string', 'null']` reads as string); lower case, as genai's may not be. */
function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type.toLowerCase();
  if (Array.isArray(type)) {
    const named = type.filter((t): t is string => typeof t === 'string' && t !== 'null');
    return named.length === 1 ? named[0]?.toLowerCase() : undefined;
  }
  return undefined;
}

function kindOf(schema: Schema): FieldKind {
  const values = Array.isArray(schema.enum) ? schema.enum : undefined;
  if (values && values.length > 0 && values.every(isScalar)) return 'enum';
  const type = typeOf(schema);
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') {
    return type;
  }
  return 'json';
}

/** A field's kind from its value alone, for arguments a schema does not describe. */
function kindOfValue(value: unknown): FieldKind {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return 'json';
}

function fieldOf(name: string, schema: Schema, required: boolean): SchemaField {
  const kind = kindOf(schema);
  const field: SchemaField = { name, label: humanizeToolName(name), kind, required };
  if (typeof schema.description === 'string') field.description = schema.description;
  if (kind === 'enum') field.options = schema.enum as unknown[];
  const bounds = [
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'minLength',
    'maxLength',
  ] as const;
  for (const key of bounds) {
    const bound = numberOf(schema[key]);
    if (bound !== undefined) field[key] = bound;
  }
  if (typeof schema.pattern === 'string') field.pattern = schema.pattern;
  return field;
}

/**
 * The fields of an object's JSON Schema, in the schema's order, then any key of `values`
 * it does not describe (so no argument is hidden from the person deciding). Without a
 * schema, the fields are read from the values.
 */
export function schemaFields(
  schema: Record<string, unknown> | undefined,
  values: Record<string, unknown> = {},
): SchemaField[] {
  const properties = isRecord(schema?.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema?.required)
      ? schema.required.filter((r): r is string => typeof r === 'string')
      : [],
  );
  const fields = Object.entries(properties).map(([name, property]) =>
    fieldOf(name, isRecord(property) ? property : {}, required.has(name)),
  );
  for (const [name, value] of Object.entries(values)) {
    if (!(name in properties)) {
      fields.push({
        name,
        label: humanizeToolName(name),
        kind: kindOfValue(value),
        required: false,
      });
    }
  }
  return fields;
}

/**
 * Whether a schema is an object whose fields a form can show one by one (text, numbers,
 * checkboxes, choices): then a response is entered field by field, else as JSON or text.
 */
export function isSimpleObject(schema: Record<string, unknown> | undefined): boolean {
  if (!schema || typeOf(schema) !== 'object' || !isRecord(schema.properties)) return false;
  const fields = schemaFields(schema);
  return fields.length > 0 && fields.every((f) => f.kind !== 'json');
}

/** Whether `name` may be changed under a policy's `editable` (every field, or the listed ones). */
export function isEditable(editable: true | string[] | undefined, name: string): boolean {
  return editable === true || (Array.isArray(editable) && editable.includes(name));
}

/** The text a field starts with for a value (an enum's by the option's index). */
function draftOf(field: SchemaField, value: unknown): string | boolean {
  if (field.kind === 'boolean') return value === true;
  if (value === undefined) return '';
  if (field.kind === 'enum') {
    const index = (field.options ?? []).findIndex((o) => sameJson(o, value));
    return index < 0 ? '' : String(index);
  }
  if (field.kind === 'json') return JSON.stringify(value, null, 2);
  return String(value);
}

/** A form's starting draft: each field's current value as text. */
export function draftFrom(fields: SchemaField[], values: Record<string, unknown>): Draft {
  return Object.fromEntries(fields.map((f) => [f.name, draftOf(f, values[f.name])]));
}

type Read = { value: unknown } | { absent: true } | { error: string };

function checkNumber(field: SchemaField, value: number): string | undefined {
  if (field.kind === 'integer' && !Number.isInteger(value)) return 'Enter a whole number.';
  if (field.minimum !== undefined && value < field.minimum) return `At least ${field.minimum}.`;
  if (field.maximum !== undefined && value > field.maximum) return `At most ${field.maximum}.`;
  if (field.exclusiveMinimum !== undefined && value <= field.exclusiveMinimum) {
    return `More than ${field.exclusiveMinimum}.`;
  }
  if (field.exclusiveMaximum !== undefined && value >= field.exclusiveMaximum) {
    return `Less than ${field.exclusiveMaximum}.`;
  }
  return undefined;
}

function matches(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    // A pattern JavaScript cannot read is the server's to check.
    return true;
  }
}

function checkString(field: SchemaField, text: string): string | undefined {
  if (field.minLength !== undefined && text.length < field.minLength) {
    return field.minLength === 1 ? 'Enter a value.' : `At least ${field.minLength} characters.`;
  }
  if (field.maxLength !== undefined && text.length > field.maxLength) {
    return `At most ${field.maxLength} characters.`;
  }
  if (field.pattern !== undefined && !matches(field.pattern, text)) {
    return `Does not match the expected format (${field.pattern}).`;
  }
  return undefined;
}

/** One field's value from its draft; an empty field is absent where the value was. */
function readField(field: SchemaField, entry: string | boolean | undefined, had: boolean): Read {
  if (field.kind === 'boolean') {
    return entry === true || had ? { value: entry === true } : { absent: true };
  }
  const text = typeof entry === 'string' ? entry : '';
  if (text.trim() === '' && field.kind !== 'string') {
    return field.required ? { error: 'Required.' } : { absent: true };
  }
  if (text === '' && !had && !field.required) return { absent: true };
  switch (field.kind) {
    case 'string': {
      const error = checkString(field, text);
      return error ? { error } : { value: text };
    }
    case 'number':
    case 'integer': {
      const value = Number(text.trim());
      if (!Number.isFinite(value)) return { error: 'Enter a number.' };
      const error = checkNumber(field, value);
      return error ? { error } : { value };
    }
    case 'enum': {
      const options = field.options ?? [];
      const index = Number(text);
      return index in options ? { value: options[index] } : { error: 'Choose one.' };
    }
    case 'json':
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { error: 'Not valid JSON.' };
      }
  }
}

/** What a form's draft reads as: the values, and a message for each field that is wrong. */
export interface FormReading {
  values: Record<string, unknown>;
  errors: Record<string, string>;
}

/**
 * The values a draft stands for, starting from `original`: the fields `enabled` allows
 * are read from the draft (an emptied optional one is removed), every other keeps its
 * value as it was, untouched by the form.
 */
export function readDraft(
  fields: SchemaField[],
  draft: Draft,
  original: Record<string, unknown>,
  enabled: (name: string) => boolean = () => true,
): FormReading {
  const values: Record<string, unknown> = { ...original };
  const errors: Record<string, string> = {};
  for (const field of fields) {
    if (!enabled(field.name)) continue;
    const read = readField(field, draft[field.name], field.name in original);
    if ('error' in read) errors[field.name] = read.error;
    else if ('absent' in read) delete values[field.name];
    else values[field.name] = read.value;
  }
  return { values, errors };
}

/** Whether two JSON values are the same (key order aside). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, index) => sameJson(item, b[index]))
    );
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => key in b && sameJson(a[key], b[key]))
    );
  }
  return false;
}
