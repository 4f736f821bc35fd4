import { describe, expect, it } from 'vitest';
import {
  draftFrom,
  isEditable,
  isSimpleObject,
  readDraft,
  sameJson,
  schemaFields,
} from './schema-fields.js';

/** The payments tool's parameters as `z.toJSONSchema` writes them. */
const PAYMENT = {
  type: 'object',
  properties: {
    amount: { type: 'number', exclusiveMinimum: 0, description: 'The amount to send' },
    recipient: { type: 'string', minLength: 1 },
    currency: { type: 'string', pattern: '^[A-Za-z]{3}$', default: 'USD' },
  },
  required: ['amount', 'recipient'],
};

describe('schemaFields', () => {
  it('maps JSON Schema types to form fields: text, number, integer, checkbox, select, JSON', () => {
    const fields = schemaFields({
      type: 'object',
      properties: {
        name: { type: 'string' },
        price: { type: 'number' },
        count: { type: 'integer', minimum: 1 },
        urgent: { type: 'boolean' },
        size: { enum: ['S', 'M', 'L'] },
        tags: { type: 'array', items: { type: 'string' } },
        address: { type: 'object' },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        maybe: { type: ['string', 'null'] },
        // A genai Schema's upper-case type.
        shout: { type: 'STRING' },
      },
      required: ['name'],
    });
    expect(fields.map((f) => [f.name, f.kind])).toEqual([
      ['name', 'string'],
      ['price', 'number'],
      ['count', 'integer'],
      ['urgent', 'boolean'],
      ['size', 'enum'],
      ['tags', 'json'],
      ['address', 'json'],
      ['either', 'json'],
      ['maybe', 'string'],
      ['shout', 'string'],
    ]);
    expect(fields[0]).toMatchObject({ label: 'Name', required: true });
    expect(fields[2]).toMatchObject({ minimum: 1, required: false });
    expect(fields[4]?.options).toEqual(['S', 'M', 'L']);
  });

  it('adds the arguments the schema does not describe, and reads fields from values without one', () => {
    expect(schemaFields(PAYMENT, { amount: 1, memo: 'x' }).map((f) => f.name)).toEqual([
      'amount',
      'recipient',
      'currency',
      'memo',
    ]);
    expect(schemaFields(undefined, { a: 'x', b: 2, c: true, d: [1] }).map((f) => f.kind)).toEqual([
      'string',
      'number',
      'boolean',
      'json',
    ]);
  });

  it('a simple object is one whose every field a form shows', () => {
    expect(isSimpleObject({ type: 'object', properties: { answer: { type: 'string' } } })).toBe(
      true,
    );
    expect(isSimpleObject({ type: 'object', properties: { list: { type: 'array' } } })).toBe(false);
    expect(isSimpleObject({ type: 'string' })).toBe(false);
    expect(isSimpleObject(undefined)).toBe(false);
  });
});

describe('readDraft', () => {
  const args = { amount: 200, recipient: 'Jiro', currency: 'USD' };
  const fields = schemaFields(PAYMENT, args);
  const editable = (name: string) => isEditable(['amount', 'recipient'], name);

  it('starts from the current arguments and reads them back unchanged', () => {
    const draft = draftFrom(fields, args);
    expect(draft).toEqual({ amount: '200', recipient: 'Jiro', currency: 'USD' });
    expect(readDraft(fields, draft, args, editable)).toEqual({ values: args, errors: {} });
  });

  it('reads numbers as numbers, and only the editable fields', () => {
    const draft = { ...draftFrom(fields, args), amount: '150.5', currency: 'EUR' };
    expect(readDraft(fields, draft, args, editable).values).toEqual({
      amount: 150.5,
      recipient: 'Jiro',
      currency: 'USD',
    });
  });

  it('says what is wrong with a field, by name, from the schema’s own bounds', () => {
    const read = (changes: Record<string, string>) =>
      readDraft(fields, { ...draftFrom(fields, args), ...changes }, args).errors;
    expect(read({ amount: 'lots' })).toEqual({ amount: 'Enter a number.' });
    expect(read({ amount: '0' })).toEqual({ amount: 'More than 0.' });
    expect(read({ amount: '' })).toEqual({ amount: 'Required.' });
    expect(read({ recipient: '' })).toEqual({ recipient: 'Enter a value.' });
    expect(read({ currency: 'dollars' })).toEqual({
      currency: 'Does not match the expected format (^[A-Za-z]{3}$).',
    });
  });

  it('an emptied optional field is removed; one that was absent stays absent', () => {
    const optional = schemaFields({
      type: 'object',
      properties: {
        note: { type: 'string' },
        count: { type: 'integer' },
        flag: { type: 'boolean' },
      },
    });
    expect(readDraft(optional, { note: '', count: '', flag: false }, {}).values).toEqual({});
    expect(readDraft(optional, { note: '', count: '', flag: false }, { count: 2 }).values).toEqual(
      {},
    );
    expect(readDraft(optional, { note: '', count: '2.5', flag: true }, {}).errors).toEqual({
      count: 'Enter a whole number.',
    });
  });

  it('enums are picked by option, anything else is JSON text (parsed, never evaluated)', () => {
    const mixed = schemaFields({
      type: 'object',
      properties: { size: { enum: ['S', 1, true] }, tags: { type: 'array' } },
      required: ['size'],
    });
    const values = { size: 1, tags: ['a'] };
    const draft = draftFrom(mixed, values);
    expect(draft).toEqual({ size: '1', tags: '[\n  "a"\n]' });
    expect(readDraft(mixed, { size: '2', tags: '["a","b"]' }, values).values).toEqual({
      size: true,
      tags: ['a', 'b'],
    });
    expect(readDraft(mixed, { size: '', tags: 'alert(1)' }, values).errors).toEqual({
      size: 'Required.',
      tags: 'Not valid JSON.',
    });
  });
});

describe('isEditable and sameJson', () => {
  it('editable is every field (true) or the listed ones', () => {
    expect(isEditable(true, 'x')).toBe(true);
    expect(isEditable(['amount'], 'amount')).toBe(true);
    expect(isEditable(['amount'], 'currency')).toBe(false);
    expect(isEditable(undefined, 'amount')).toBe(false);
  });

  it('compares JSON values whatever their key order', () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson(1, '1')).toBe(false);
  });
});
