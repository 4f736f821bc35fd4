import { createEvent, createEventActions, type Event } from '@google/adk';
import type { Part } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { CONFIRMATION_CALL } from '../../agents/confirmation-call.js';
import { isToolCheckpoint } from './tool-checkpoint.js';

function event(parts: Part[], extra: Partial<Event> = {}): Event {
  return createEvent({
    invocationId: 'inv-1',
    author: 'agent',
    content: { role: 'model', parts },
    ...extra,
  });
}

const call = (name: string, id = `id-${name}`): Part => ({ functionCall: { id, name, args: {} } });
const response = (name: string, id = `id-${name}`): Part => ({
  functionResponse: { id, name, response: { ok: true } },
});

describe('isToolCheckpoint', () => {
  it('stores a model turn that calls tools, and their results', () => {
    expect(isToolCheckpoint(event([call('tool_a')]))).toBe(true);
    expect(
      isToolCheckpoint(event([{ text: 'Working on it.' }, call('tool_a'), call('tool_b')])),
    ).toBe(true);
    expect(isToolCheckpoint(event([response('tool_a'), response('tool_b')]))).toBe(true);
  });

  it("leaves an agent's last word to the run's end", () => {
    expect(isToolCheckpoint(event([{ text: 'Done.' }]))).toBe(false);
    const ending = createEventActions({ skipSummarization: true });
    expect(isToolCheckpoint(event([response('tool_a')], { actions: ending }))).toBe(false);
    expect(isToolCheckpoint(event([call('tool_a')], { partial: true }))).toBe(false);
    expect(isToolCheckpoint(event([response('tool_a')], { author: 'user' }))).toBe(false);
  });

  it('leaves a call waiting for a person to its pause', () => {
    expect(isToolCheckpoint(event([call('pick')], { longRunningToolIds: ['id-pick'] }))).toBe(
      false,
    );
    expect(isToolCheckpoint(event([call(CONFIRMATION_CALL), response('pay')]))).toBe(false);
    const asking = createEventActions({
      requestedToolConfirmations: { 'id-pay': { confirmed: false } as never },
    });
    expect(isToolCheckpoint(event([response('pay')], { actions: asking }))).toBe(false);
  });

  it("leaves a hand-over to the next agent's first checkpoint", () => {
    expect(isToolCheckpoint(event([call('transfer_to_agent')]))).toBe(false);
    const transfer = createEventActions({ transferToAgent: 'picker' });
    expect(isToolCheckpoint(event([response('transfer_to_agent')], { actions: transfer }))).toBe(
      false,
    );
    const escalate = createEventActions({ escalate: true });
    expect(isToolCheckpoint(event([response('exit_loop')], { actions: escalate }))).toBe(false);
  });
});
