import { State } from '@google/adk';

function toJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** ADK state split by where it lives: the session's own keys, and the app's shared ones. */
export interface SplitState {
  session: Record<string, string>;
  app: Record<string, string>;
  user: Record<string, string>;
}

/** Splits state into session, `app:` and `user:` scopes as JSON (`temp:` is never stored). */
export function splitState(state: Record<string, unknown>): SplitState {
  const split: SplitState = { session: {}, app: {}, user: {} };
  for (const [key, value] of Object.entries(state)) {
    if (key.startsWith(State.APP_PREFIX)) {
      split.app[key.slice(State.APP_PREFIX.length)] = toJson(value);
    } else if (key.startsWith(State.USER_PREFIX)) {
      split.user[key.slice(State.USER_PREFIX.length)] = toJson(value);
    } else if (!key.startsWith(State.TEMP_PREFIX)) {
      split.session[key] = toJson(value);
    }
  }
  return split;
}
