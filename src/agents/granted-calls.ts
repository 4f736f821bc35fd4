import { type BaseTool, type Context, isFunctionTool, ToolConfirmation } from '@google/adk';
import { type Grant, type GrantedCall, grantCovers, withinPolicy } from '../core/grants.js';
import { entryOf } from '../core/tool-entry.js';
import type { ToolDecisionRules } from './agent-app.js';
import { HoldpointPlugin } from './holdpoint-plugin.js';
import { gatedByName } from './named-tool-gate.js';

/** Where a segment's grants come from, and how a call allowed by one is recorded. */
export interface GrantSource {
  /** The call's app, its session and the session owner's id (whose grants apply). */
  app: string;
  sessionId: string;
  userId: string;
  /** Per tool, what the app lets deciders allow (only tools with `grants` are looked at). */
  rules: Readonly<Record<string, ToolDecisionRules>>;
  /** The tools the app's approvals name: those that cannot ask themselves are asked about (NamedToolGate). */
  named: ReadonlySet<string>;
  now: () => number;
  /** The user's grants on `toolName` in force at `now`. */
  inForce: (toolName: string, now: number) => Promise<Grant[]>;
  /**
   * Records that `grant` allows the call (its `allowed_by_grant` line), durably; throws
   * when it cannot (the segment lost its session): the call then does not run.
   */
  allow: (grant: Grant, call: GrantedCall, now: number) => Promise<void>;
}

/**
 * Lets a call that would ask for a person run without a pause when a grant covers it:
 * for a tool whose app allows grants, that would ask for confirmation now and has no
 * answer yet, the first grant in force that covers the call (its user, session for the
 * `session` scope, `match`) and is within the tool's policy as it stands now (its
 * scopes, its `maxHours`) is recorded as allowing it, and only then is the call
 * confirmed, so the tool runs. Expired and revoked grants are not in force. Tools whose
 * app allows no grants cost nothing.
 */
export class GrantedCalls extends HoldpointPlugin {
  constructor(private readonly source: GrantSource) {
    super('holdpoint-granted-calls');
  }

  override async beforeToolCallback({
    tool,
    toolArgs,
    toolContext,
  }: {
    tool: BaseTool;
    toolArgs: Record<string, unknown>;
    toolContext: Context;
  }): Promise<Record<string, unknown> | undefined> {
    const { source } = this;
    const policy = entryOf(source.rules, tool.name)?.grants;
    if (!policy || toolContext.toolConfirmation) return undefined;
    if (!(await asksForConfirmation(tool, toolArgs, toolContext, source.named))) return undefined;
    const now = source.now();
    const call: GrantedCall = {
      app: source.app,
      toolName: tool.name,
      userId: source.userId,
      sessionId: source.sessionId,
      args: toolArgs,
    };
    const grant = (await source.inForce(tool.name, now)).find(
      (g) => withinPolicy(g, policy) && grantCovers(g, call, now),
    );
    if (!grant) return undefined;
    await source.allow(grant, call, now);
    // ADK's confirmation check reads this: the call counts as confirmed and runs.
    toolContext.toolConfirmation = new ToolConfirmation({
      confirmed: true,
      hint: `Allowed by grant ${grant.grantId}.`,
    });
    return undefined;
  }
}

/**
 * Whether this call of `tool` asks for confirmation: a FunctionTool's `requireConfirmation`
 * (arguments it refuses are its own to report), or the gate for a tool the app names.
 */
async function asksForConfirmation(
  tool: BaseTool,
  args: Record<string, unknown>,
  context: Context,
  named: ReadonlySet<string>,
): Promise<boolean> {
  if (!isFunctionTool(tool)) return gatedByName(tool, named);
  try {
    return Boolean(await tool.checkRequireConfirmation(args, context));
  } catch {
    return false;
  }
}
