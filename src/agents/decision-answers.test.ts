import type { Context, Event } from '@google/adk';
import { describe, expect, it } from 'vitest';
import {
  DecisionAnswers,
  editedCalls,
  RAN_WITH,
  ranWithOf,
  withCallsAsRan,
} from './decision-answers.js';

const context = (functionCallId: string) => ({ functionCallId }) as unknown as Context;
const tool = {} as never;

describe('DecisionAnswers', () => {
  it('replaces the arguments in place for an edit, answers in the tool place, adds a reason', async () => {
    const plugin = new DecisionAnswers(
      new Map([
        ['edit', { editedArgs: { amount: 150 } }],
        ['answer', { response: 'told' }],
        ['no', { rejectedWith: 'keep it' }],
      ]),
    );
    const toolArgs: Record<string, unknown> = { amount: 200, memo: 'x' };
    expect(await plugin.beforeToolCallback({ tool, toolArgs, toolContext: context('edit') })).toBe(
      undefined,
    );
    expect(toolArgs).toEqual({ amount: 150 });
    expect(
      await plugin.beforeToolCallback({ tool, toolArgs: {}, toolContext: context('answer') }),
    ).toEqual({
      result: 'told',
    });
    const rejected = { error: 'This tool call is rejected.' };
    expect(
      await plugin.afterToolCallback({
        tool,
        toolArgs: {},
        toolContext: context('no'),
        result: rejected,
      }),
    ).toEqual({ ...rejected, reason: 'keep it' });
    expect(
      await plugin.afterToolCallback({
        tool,
        toolArgs: {},
        toolContext: context('other'),
        result: rejected,
      }),
    ).toBe(undefined);
  });

  it('shows edited calls as they ran, found by id or by name and model arguments', () => {
    const events = [
      {
        content: {
          role: 'model',
          parts: [
            { functionCall: { id: 'c1', name: 'pay', args: { amount: 200 } } },
            { functionCall: { id: 'c2', name: 'pay', args: { amount: 5 } } },
          ],
        },
      },
      {
        customMetadata: { [RAN_WITH]: { c1: { amount: 150 } } },
        content: {
          role: 'user',
          parts: [{ functionResponse: { id: 'c1', name: 'pay', response: {} } }],
        },
      },
    ] as unknown as Event[];
    const edited = editedCalls(events, ranWithOf(events));
    expect(edited).toEqual([
      { id: 'c1', name: 'pay', modelArgs: { amount: 200 }, args: { amount: 150 }, later: 0 },
    ]);
    // ADK takes its own call ids out of a model request.
    const contents = [
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'pay', args: { amount: 200 } } },
          { functionCall: { name: 'pay', args: { amount: 5 } } },
        ],
      },
    ];
    const shown = withCallsAsRan(contents, edited);
    expect(shown[0]?.parts?.map((p) => p.functionCall?.args)).toEqual([
      { amount: 150 },
      { amount: 5 },
    ]);
    // A copy: the request's own contents are left as they were.
    expect(contents[0]?.parts[0]?.functionCall.args).toEqual({ amount: 200 });
  });

  it('rewrites the edited call, not an earlier one of the same name and arguments', () => {
    const call = (id: string) => ({ functionCall: { id, name: 'pay', args: { amount: 200 } } });
    const events = [
      { content: { role: 'model', parts: [call('c0')] } },
      { content: { role: 'model', parts: [call('c1'), call('c2')] } },
      { customMetadata: { [RAN_WITH]: { c2: { amount: 150 } } }, content: { role: 'user' } },
    ] as unknown as Event[];
    const edited = editedCalls(events, ranWithOf(events));
    // ADK takes its own call ids out of a model request.
    const bare = { functionCall: { name: 'pay', args: { amount: 200 } } };
    const contents = [
      { role: 'model', parts: [bare] },
      { role: 'model', parts: [bare, bare] },
    ];
    const shown = withCallsAsRan(contents, edited);
    expect(shown.map((c) => c.parts?.map((p) => p.functionCall?.args))).toEqual([
      [{ amount: 200 }],
      [{ amount: 200 }, { amount: 150 }],
    ]);
  });
});
