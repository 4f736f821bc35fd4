import type { Context } from 'hono';
import type { z } from 'zod';
import { HoldpointError } from '../../core/errors.js';

/** Validates input against a schema, or throws VALIDATION_FAILED naming the first issue. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new HoldpointError('VALIDATION_FAILED', `${where}${issue?.message ?? 'invalid input'}`, {
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  return parsed.data;
}

/** Reads a JSON body and validates it; INVALID_JSON when it is not JSON. */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new HoldpointError('INVALID_JSON', 'The request body is not valid JSON.');
  }
  return parse(schema, body);
}
