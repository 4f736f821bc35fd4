import { z } from 'zod';
import { HoldpointError } from './errors.js';
import { jsonBoundsProblem, LIMITS } from './limits.js';

/** Validates input against a schema, or throws VALIDATION_FAILED naming the first issue. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
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

/** A positive, finite number (seconds, sizes) given in code. */
export const positiveNumber = z.number().positive().finite();

/**
 * A Redis key prefix: letters, digits, `_ . -`; no braces, which would make hash tags
 * of it and split a session's keys across slots.
 */
export const redisKeyPrefix = z
  .string()
  .regex(/^[\w.-]{1,100}$/, 'letters, digits, _ . - (no braces: they make hash tags)');

/** A JSON value within the payload bounds (depth and size), named in the error. */
export const boundedJson = z.unknown().superRefine((value, ctx) => {
  const problem = jsonBoundsProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: `the value ${problem}` });
});

/** A user message: 1 to 10,000 characters once trimmed. */
export const messageText = z
  .string()
  .trim()
  .min(1)
  .max(LIMITS.textChars, `at most ${LIMITS.textChars} characters`);

/** Ids and user names. */
export const idText = z
  .string()
  .trim()
  .min(1)
  .max(LIMITS.idChars, `at most ${LIMITS.idChars} characters`);

/** A reason a person gives. */
export const reasonText = z
  .string()
  .max(LIMITS.reasonChars, `at most ${LIMITS.reasonChars} characters`);

/** An app name. */
export const appName = z.string().min(1).max(100);
