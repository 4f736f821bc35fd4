import { EventSchemas } from '@ag-ui/core/schemas';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../core/types.js';
import { AgUiEventMapper } from './event-mapper.js';

const ids = { threadId: 't1', runId: 'r1' };

const approval: ApprovalRequest = {
  approvalId: 'a1',
  kind: 'confirmation',
  toolName: 'process_payment',
  toolCallId: 'call-1',
  args: { amount: 200 },
  hint: 'Send 200 USD to Jiro?',
  createdAt: 0,
  expiresAt: Date.UTC(2026, 11, 8),
};

describe('AgUiEventMapper', () => {
  it('streams text and tool calls as AG-UI events, each valid', () => {
    const mapper = new AgUiEventMapper(ids);
    const events = [
      ...mapper.map({ type: 'text', id: 'm1', text: 'Sending.' }),
      ...mapper.map({ type: 'tool-call', toolCallId: 'c1', toolName: 'pay', args: { amount: 2 } }),
      ...mapper.map({ type: 'tool-result', toolCallId: 'c1', toolName: 'pay', output: { ok: 1 } }),
      ...mapper.map({ type: 'tool-error', toolCallId: 'c2', toolName: 'pay', error: 'boom' }),
      ...mapper.map({ type: 'tool-denied', toolCallId: 'c3', toolName: 'pay' }),
    ];
    for (const event of events) EventSchemas.parse(event);
    expect(events.map((e) => e.type)).toEqual([
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'TOOL_CALL_RESULT',
      'TOOL_CALL_RESULT',
    ]);
    expect(events[4]).toMatchObject({ delta: '{"amount":2}' });
    expect(events.slice(6).map((e) => 'content' in e && e.content)).toEqual([
      '{"ok":1}',
      '{"error":"boom"}',
      '{"denied":true}',
    ]);
  });

  it('does not start again a call this client was told of (it resumes)', () => {
    const mapper = new AgUiEventMapper(ids, ['c1']);
    expect(mapper.map({ type: 'tool-call', toolCallId: 'c1', toolName: 'pay', args: {} })).toEqual(
      [],
    );
  });

  it('ends a paused run with one interrupt per pending approval', () => {
    const [finished] = new AgUiEventMapper(ids).finished({
      status: 'pending_approval',
      approvals: [approval],
    });
    EventSchemas.parse(finished);
    expect(finished).toMatchObject({
      type: 'RUN_FINISHED',
      ...ids,
      outcome: {
        type: 'interrupt',
        interrupts: [
          {
            id: 'a1',
            reason: 'tool_approval',
            message: 'Send 200 USD to Jiro?',
            toolCallId: 'call-1',
            expiresAt: '2026-12-08T00:00:00.000Z',
            metadata: { holdpoint: { tool: 'process_payment', args: { amount: 200 } } },
          },
        ],
      },
    });
  });

  it('ends a run once: nothing follows RUN_ERROR or RUN_FINISHED', () => {
    const mapper = new AgUiEventMapper(ids);
    const failed = mapper.map({
      type: 'failed',
      sessionId: 's',
      invocationId: 'i',
      code: 'RUN_FAILED',
      message: 'The model failed.',
    });
    expect(failed).toEqual([
      { type: 'RUN_ERROR', code: 'RUN_FAILED', message: 'The model failed.' },
    ]);
    expect(mapper.over).toBe(true);
    expect(mapper.finished({ status: 'idle' })).toEqual([]);
    expect(mapper.error('INTERNAL', 'Internal error.')).toEqual([]);
  });

  it('a completed run finishes with its answer; an idle thread with none', () => {
    const [completed] = new AgUiEventMapper(ids).finished({ status: 'completed', result: 'Sent.' });
    expect(completed).toMatchObject({ result: 'Sent.', outcome: { type: 'success' } });
    const [idle] = new AgUiEventMapper(ids).finished({ status: 'idle' });
    expect(idle).toEqual({ type: 'RUN_FINISHED', ...ids, outcome: { type: 'success' } });
  });
});
