import { z } from 'zod';
import { ERROR_CODES } from '../../../core/errors.js';
import { STORE_KINDS } from '../../../core/store-kinds.js';

/** `GET /api/me`: who is signed in, how, and where they sign out (OpenID Connect sign-in). */
export const me = z.object({
  principal: z.object({ id: z.string(), roles: z.array(z.string()) }),
  auth_mode: z.enum(['dev', 'api-keys', 'jwt', 'custom']),
  logout_url: z.string().optional(),
});

/** An app the server serves. */
export const app = z.object({
  name: z.string(),
  label: z.string(),
  description: z.string(),
  /** Messages to try. */
  examples: z.array(z.string()),
  /** The shape of its agent tree and tools. */
  fingerprint: z.string(),
});

/** `GET /api/apps`: the apps, the default first. */
export const apps = z.object({ apps: z.array(app), default_app: z.string().optional() });

/** `GET /healthz`: whether the store answers and takes writes (503 when not, with `reason` when writes fail). */
export const health = z.object({
  status: z.enum(['ok', 'unavailable']),
  store: z.enum(STORE_KINDS),
  code: z.string().optional(),
  reason: z.string().optional(),
});

/** Every error answer: a stable code, a message, and the details the code carries. */
export const error = z.object({
  error: z.looseObject({
    code: z.enum(ERROR_CODES),
    message: z.string(),
  }),
});

export type Me = z.output<typeof me>;
export type App = z.output<typeof app>;
export type Apps = z.output<typeof apps>;
export type Health = z.output<typeof health>;
export type ErrorAnswer = z.output<typeof error>;
