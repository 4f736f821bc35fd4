import { type Context, FunctionTool, ToolConfirmation } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Grant } from '../core/grants.js';
import { GrantedCalls, type GrantSource } from './granted-calls.js';

const T0 = 1_700_000_000_000;
const params = z.object({ amount: z.number() });
const execute = async () => ({ ok: true });
const always = new FunctionTool({
  name: 'tip',
  description: 'Tips.',
  parameters: params,
  requireConfirmation: true,
  execute,
});
const above100 = new FunctionTool({
  name: 'big',
  description: 'Big moves.',
  parameters: params,
  requireConfirmation: ({ amount }) => amount > 100,
  execute,
});
const free = new FunctionTool({ name: 'free', description: 'Free.', parameters: params, execute });

function grant(toolName: string, patch: Partial<Grant> = {}): Grant {
  return {
    grantId: `grt_${toolName}`,
    app: 'shop',
    toolName,
    userId: 'ann',
    scope: 'session',
    sessionId: 's1',
    approvalId: 'apr_1',
    grantedBy: 'maria',
    createdAt: T0,
    expiresAt: T0 + 3_600_000,
    ...patch,
  };
}

const RULES: GrantSource['rules'] = {
  tip: { grants: { scopes: ['session'], maxHours: 1 } },
  big: { grants: { scopes: ['session'], maxHours: 1 } },
};

/** The plugin on `grants`, and what it read and recorded. */
function plugin(grants: Grant[], rules: GrantSource['rules'] = RULES) {
  const reads: string[] = [];
  const allowed: { grantId: string; confirmedBefore: boolean }[] = [];
  let context: { toolConfirmation?: ToolConfirmation } = {};
  const source: GrantSource = {
    app: 'shop',
    sessionId: 's1',
    userId: 'ann',
    rules,
    named: new Set(Object.keys(rules)),
    now: () => T0,
    inForce: async (toolName) => {
      reads.push(toolName);
      return grants.filter((g) => g.toolName === toolName);
    },
    allow: async (g) => {
      allowed.push({ grantId: g.grantId, confirmedBefore: context.toolConfirmation !== undefined });
    },
  };
  const granted = new GrantedCalls(source);
  const call = async (tool: FunctionTool, amount: number, confirmation?: ToolConfirmation) => {
    context = { toolConfirmation: confirmation };
    await granted.beforeToolCallback({
      tool,
      toolArgs: { amount },
      toolContext: context as unknown as Context,
    });
    return context.toolConfirmation;
  };
  return { reads, allowed, call };
}

describe('GrantedCalls', () => {
  it('confirms a call a grant covers, after recording it', async () => {
    const { allowed, call } = plugin([grant('tip')]);
    const confirmation = await call(always, 5);
    expect(confirmation?.confirmed).toBe(true);
    expect(allowed).toEqual([{ grantId: 'grt_tip', confirmedBefore: false }]);
  });

  it('reads nothing for a tool without grants, a call that would not ask, or one answered', async () => {
    const { reads, allowed, call } = plugin([grant('tip'), grant('big'), grant('free')]);
    expect(await call(free, 500)).toBeUndefined();
    expect(await call(above100, 50)).toBeUndefined();
    const answered = new ToolConfirmation({ confirmed: false });
    expect(await call(always, 5, answered)).toBe(answered);
    expect(reads).toEqual([]);
    expect(allowed).toEqual([]);
    expect((await call(above100, 500))?.confirmed).toBe(true);
    expect(reads).toEqual(['big']);
  });

  it('leaves a call no grant covers to ask: another session, revoked, expired, unmatched', async () => {
    const { allowed, call } = plugin([
      grant('tip', { grantId: 'other', sessionId: 's2' }),
      grant('tip', { grantId: 'revoked', revokedAt: T0 - 1 }),
      grant('tip', { grantId: 'expired', expiresAt: T0 }),
      grant('tip', { grantId: 'small', match: { amount: { lt: 5 } } }),
    ]);
    expect(await call(always, 5)).toBeUndefined();
    expect(allowed).toEqual([]);
    expect((await call(always, 4))?.confirmed).toBe(true);
    expect(allowed.map((a) => a.grantId)).toEqual(['small']);
  });

  it('applies no grant wider than the tool policy in force now (the policy narrowed since)', async () => {
    const { allowed, call } = plugin(
      [
        grant('tip', { grantId: 'user-wide', scope: 'user' }),
        grant('tip', { grantId: 'too-long', expiresAt: T0 + 2 * 3_600_000 }),
      ],
      { tip: { grants: { scopes: ['session'], maxHours: 1 } } },
    );
    expect(await call(always, 5)).toBeUndefined();
    expect(allowed).toEqual([]);
  });
});
