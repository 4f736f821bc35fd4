import type { Context } from 'hono';
import type { z } from 'zod';
import { HoldpointError } from '../../core/errors.js';
import { validate } from '../../core/validate.js';

/** Reads a JSON body and validates it; INVALID_JSON when it is not JSON. */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new HoldpointError('INVALID_JSON', 'The request body is not valid JSON.');
  }
  return validate(schema, body);
}

/** Like `readBody`, but an empty body reads as `{}`. */
export async function readOptionalBody<S extends z.ZodType>(
  c: Context,
  schema: S,
): Promise<z.infer<S>> {
  const text = await c.req.text();
  if (text.trim() === '') return validate(schema, {});
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HoldpointError('INVALID_JSON', 'The request body is not valid JSON.');
  }
  return validate(schema, body);
}
