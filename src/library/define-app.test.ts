import { LlmAgent } from '@google/adk';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { RulesModel } from '../agents/rules-model.js';
import { createHoldpoint, type HoldpointOptions } from './create-holdpoint.js';
import { type AppDefinition, defineApp, isHoldpointApp, resolveApp } from './define-app.js';
import { memoryStore, redisStore } from './stores.js';

const model = new RulesModel('echo', () => ({ role: 'model', parts: [{ text: 'hi' }] }));
const agent = new LlmAgent({ name: 'echo', model, instruction: 'Echo.' });

describe('defineApp', () => {
  it('keeps the agent as it is and marks the app', () => {
    const app = defineApp({ name: 'echo', agent });
    expect(app.agent).toBe(agent);
    expect(isHoldpointApp(app)).toBe(true);
    expect(isHoldpointApp({ name: 'echo', agent })).toBe(false);
  });

  it.each([
    [{ name: 'Echo App', agent }, /App Echo App: name: use 1–100/],
    [{ name: 'echo', agent: 'gemini' }, /agent: an ADK agent/],
    [{ name: 'echo', agent, approvals: { t: { onTimeout: 'wait' } } }, /approvals\.t\.onTimeout/],
    [{ name: 'echo', agent, approvals: { t: { timeoutSeconds: -1 } } }, /timeoutSeconds/],
    [{ name: 'echo', agent, extra: true }, /Unrecognized key/],
    [
      { name: 'echo', agent, approvals: { t: { sla: { remind: { afterSeconds: 0 } } } } },
      /approvals\.t\.sla\.remind\.afterSeconds/,
    ],
    [
      {
        name: 'echo',
        agent,
        approvals: {
          t: {
            sla: {
              escalate: [
                { afterSeconds: 600, to: { roles: ['cfo'] } },
                { afterSeconds: 300, to: { users: ['dave'] } },
              ],
            },
          },
        },
      },
      /approvals\.t\.sla\.escalate: steps must come in increasing afterSeconds/,
    ],
    [
      {
        name: 'echo',
        agent,
        approvals: { t: { sla: { escalate: [{ afterSeconds: 5, to: {} }] } } },
      },
      /approvals\.t\.sla\.escalate\.0\.to: names nobody/,
    ],
    [
      {
        name: 'echo',
        agent,
        approvals: { t: { sla: { deadline: { afterSeconds: 5, action: 'wait' } } } },
      },
      /approvals\.t\.sla\.deadline\.action/,
    ],
    [
      { name: 'echo', agent, approvals: { t: { notify: { to: ['dave'] } } } },
      /approvals\.t\.notify\.to\.0: an audience/,
    ],
    [{ name: 'echo', agent, approvals: { t: { links: 'sign-in' } } }, /approvals\.t\.links/],
  ])('refuses %j with INVALID_APP naming the field', (definition, message) => {
    expect(() => defineApp(definition as unknown as AppDefinition)).toThrow(message);
    try {
      defineApp(definition as unknown as AppDefinition);
    } catch (error) {
      expect(error).toMatchObject({ code: 'INVALID_APP' });
    }
  });

  it('builds the agent for the host’s model when given a function, with hints and policies', () => {
    const seen: string[] = [];
    const app = defineApp({
      name: 'echo',
      agent: ({ model: setting }) => {
        seen.push(setting);
        return agent;
      },
      approvals: {
        pay: { hint: 'Pay?', onTimeout: 'deny' },
        ask: { hint: (args) => `Ask ${String(args.who)}?`, timeoutSeconds: 5 },
      },
    });
    const resolved = resolveApp(app, { model: 'gemini-2.5-flash' });
    expect(seen).toEqual(['gemini-2.5-flash']);
    expect(resolved.rootAgent).toBe(agent);
    expect(resolved.hints.pay?.({})).toBe('Pay?');
    expect(resolved.hints.ask?.({ who: 'Ann' })).toBe('Ask Ann?');
    expect(resolved.approvalPolicies).toEqual({
      pay: { timeoutSeconds: undefined, onTimeout: 'deny' },
      ask: { timeoutSeconds: 5, onTimeout: undefined },
    });
    expect(resolved.label).toBe('echo');
  });

  it('fills in the SLA’s defaults and puts notify, sla and links on the resolved app', () => {
    const app = defineApp({
      name: 'echo',
      agent,
      approvals: {
        pay: {
          notify: { channels: ['slack'], to: ['role:finance'] },
          sla: {
            remind: { afterSeconds: 60, everySeconds: 120 },
            escalate: [{ afterSeconds: 300, to: { roles: ['cfo'] } }],
            deadline: { afterSeconds: 900, action: 'park' },
          },
          links: 'link+sign-in',
        },
        ask: { sla: { remind: { afterSeconds: 30 } } },
        plain: { hint: 'Go?' },
      },
    });
    const resolved = resolveApp(app, { model: 'rules' });
    expect(resolved.approvalRules).toEqual({
      pay: {
        notify: { channels: ['slack'], to: ['role:finance'] },
        sla: {
          remind: { afterSeconds: 60, everySeconds: 120, times: 3 },
          escalate: [{ afterSeconds: 300, to: { roles: ['cfo'], users: [] } }],
          deadline: { afterSeconds: 900, action: 'park' },
        },
        links: 'link+sign-in',
      },
      ask: { sla: { remind: { afterSeconds: 30, times: 1 } } },
    });
  });

  it('refuses an agent function that returns no agent', () => {
    const app = defineApp({ name: 'echo', agent: () => 'nothing' as never });
    expect(() => resolveApp(app, { model: 'rules' })).toThrow(/did not return an ADK agent/);
  });
});

describe('createHoldpoint', () => {
  it.each([
    [{ apps: [] }, /at least one app/],
    [{ apps: [{ name: 'echo', agent }] }, /must come from defineApp/],
    [
      { apps: [defineApp({ name: 'echo', agent }), defineApp({ name: 'echo', agent })] },
      /Two apps are named echo/,
    ],
    [{ apps: [defineApp({ name: 'echo', agent })], defaultApp: 'other' }, /default app other/],
  ])('refuses %#: INVALID_APP', (options, message) => {
    const invalid = { sweepIntervalSeconds: false, ...options } as unknown as HoldpointOptions;
    expect(() => createHoldpoint(invalid)).toThrow(message);
  });

  it('serves the apps, the first being the default', async () => {
    const holdpoint = createHoldpoint({
      apps: [defineApp({ name: 'echo', agent }), defineApp({ name: 'other', agent })],
      sweepIntervalSeconds: false,
    });
    expect(holdpoint.apps).toEqual(['echo', 'other']);
    const done = await holdpoint.start({ userId: 'ann', query: 'hello' });
    expect(done).toMatchObject({ status: 'completed', app: 'echo', result: 'hi' });
    await holdpoint.close();
  });
});

describe('options are checked where they are given', () => {
  const app = defineApp({ name: 'echo', agent });

  it.each([
    [{ pauseTTL: 5 }, /Unrecognized key/],
    [{ pauseTtlSeconds: -5 }, /pauseTtlSeconds/],
    [{ sweepIntervalSeconds: 'fast' }, /sweepIntervalSeconds/],
    [
      { store: {} },
      /store: a store from memoryStore\(\), sqliteStore\(\), postgresStore\(\) or redisStore\(\)/,
    ],
    [{ pauseTtlSeconds: 600, retentionSeconds: 60 }, /retentionSeconds: must be at least/],
  ])('createHoldpoint refuses %j with VALIDATION_FAILED', (extra, message) => {
    const options = { apps: [app], sweepIntervalSeconds: false, ...extra } as HoldpointOptions;
    expect(() => createHoldpoint(options)).toThrow(message);
  });

  it.each([
    [() => memoryStore({ maxSessions: -1 }), /maxSessions/],
    [() => redisStore({ url: 'http://nope' }), /redis:\/\/ or rediss:\/\//],
    [() => redisStore({}), /exactly one of url or client/],
    [() => redisStore({ url: 'redis://127.0.0.1:1', keyPrefix: 'a{b}' }), /keyPrefix/],
  ])('a store refuses bad options: %#', (make, message) => {
    expect(make).toThrow(message);
  });

  it('an agent function that throws is INVALID_APP naming the app', () => {
    const failing = defineApp({
      name: 'boom',
      agent: () => {
        throw new Error('no key');
      },
    });
    expect(() => createHoldpoint({ apps: [failing], sweepIntervalSeconds: false })).toThrow(
      'App boom: its agent function threw: no key',
    );
  });

  it('warns about approvals for tools the agent does not have', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const typo = defineApp({ name: 'echo', agent, approvals: { no_such_tool: { hint: 'x' } } });
    createHoldpoint({ apps: [typo], logger, sweepIntervalSeconds: false });
    expect(lines.join('')).toContain('approvals name tools its agent does not have: no_such_tool');
  });

  it('warns about notify rules naming channels that are not configured', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const typo = defineApp({
      name: 'echo',
      agent,
      approvals: { t: { notify: { channels: ['slak', 'mine'] } } },
    });
    const mine = { name: 'mine', audience: 'people' as const, send: async () => undefined };
    const options = { apps: [typo], logger, sweepIntervalSeconds: false as const };
    createHoldpoint({ ...options, notifications: { channels: [mine] } });
    expect(lines.join('')).toContain('t\'s notify names channels that are not configured: slak"');
  });
});
