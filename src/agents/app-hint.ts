import { LIMITS } from '../core/limits.js';
import { entryOf } from '../core/tool-entry.js';
import type { ApprovalHint } from './agent-app.js';

/**
 * The app's hint for a call of `toolName` with `args`, or undefined when it has none or
 * it fails: a hint runs on raw arguments (the model's, or a decider's edit), and a hint
 * that throws on them must not make the run, or the session's history, unreadable.
 */
export function appHint(
  hints: Record<string, ApprovalHint>,
  toolName: string,
  args: Record<string, unknown>,
): string | undefined {
  try {
    const hint = entryOf(hints, toolName)?.(args);
    return typeof hint === 'string' && hint.trim() !== ''
      ? hint.slice(0, LIMITS.reasonChars)
      : undefined;
  } catch {
    return undefined;
  }
}
