import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../core/types.js';
import type { RunEvent } from '../../runtime/run-event.js';
import type { PendingOutcome } from '../../runtime/run-outcome.js';
import { UIChunkMapper } from './ui-chunk-mapper.js';

const started = {
  type: 'run-started',
  sessionId: 's1',
  invocationId: 'inv-1',
  app: 'payments',
  resumed: false,
} as const;

const approval: ApprovalRequest = {
  approvalId: 'adk-confirm',
  kind: 'confirmation',
  toolName: 'process_payment',
  toolCallId: 'adk-call',
  args: { amount: 5 },
  hint: 'Send 5 USD to Bob?',
  createdAt: 0,
  expiresAt: 60_000,
};

const paused: PendingOutcome = {
  status: 'pending_approval',
  sessionId: 's1',
  invocationId: 'inv-1',
  pauseId: 'pause-1',
  app: 'payments',
  message: approval.hint,
  approvals: [approval],
  decisions: [],
  expiresAt: 60_000,
};

describe('UIChunkMapper', () => {
  it('maps a tool failure to tool-output-error and a failed run to an error chunk', () => {
    const mapper = new UIChunkMapper('two-turn');
    mapper.map(started);
    expect(
      mapper.map({ type: 'tool-error', toolCallId: 'c1', toolName: 't', error: 'boom' }),
    ).toEqual([{ type: 'tool-output-error', toolCallId: 'c1', errorText: 'boom' }]);
    expect(
      mapper.map({
        type: 'failed',
        sessionId: 's1',
        invocationId: 'inv-1',
        code: 'RUN_FAILED',
        message: 'model down',
      }),
    ).toEqual([
      { type: 'finish-step' },
      { type: 'message-metadata', messageMetadata: expect.objectContaining({ status: 'failed' }) },
      { type: 'error', errorText: 'RUN_FAILED: model down' },
    ]);
  });

  it('shows an edited call with the input it ran with, and the model input beside it', () => {
    const mapper = new UIChunkMapper('two-turn');
    mapper.map(started);
    const call = { type: 'tool-call', toolCallId: 'c1', toolName: 't' } as const;
    expect(mapper.map({ ...call, args: { amount: 150 }, modelArgs: { amount: 200 } })).toEqual([
      { type: 'tool-input-start', toolCallId: 'c1', toolName: 't' },
      {
        type: 'tool-input-available',
        toolCallId: 'c1',
        toolName: 't',
        input: { amount: 150 },
        toolMetadata: { model_input: { amount: 200 } },
      },
    ]);
    expect(mapper.map({ ...call, toolCallId: 'c2', args: { amount: 5 } })[1]).not.toHaveProperty(
      'toolMetadata',
    );
  });

  it('asks for approval on the original tool call, with the hint as reason', () => {
    const mapper = new UIChunkMapper('two-turn');
    expect(mapper.map({ type: 'approval-requested', approval })).toEqual([
      {
        type: 'tool-approval-request',
        approvalId: 'adk-confirm',
        toolCallId: 'adk-call',
        reason: 'Send 5 USD to Bob?',
      },
    ]);
    expect(
      mapper.map({ type: 'approval-requested', approval: { ...approval, kind: 'input' } }),
    ).toEqual([]);
  });

  it('carries decisions only in continuous mode, each approval once', () => {
    const decided: RunEvent = {
      type: 'decided',
      approvals: [approval],
      decisions: [
        { approvalId: 'adk-confirm', approved: false, reason: 'no', decidedBy: 'u', at: 1 },
      ],
    };
    expect(new UIChunkMapper('two-turn').map(decided)).toEqual([]);
    const continuous = new UIChunkMapper('continuous');
    expect(continuous.map(decided)).toEqual([
      { type: 'tool-approval-response', approvalId: 'adk-confirm', approved: false, reason: 'no' },
    ]);
    expect(continuous.map(decided)).toEqual([]);
  });

  it('closes the step and reports the status when a run pauses or is cancelled', () => {
    const mapper = new UIChunkMapper('continuous');
    mapper.map(started);
    expect(mapper.map({ type: 'outcome', outcome: paused })).toEqual([
      { type: 'finish-step' },
      {
        type: 'message-metadata',
        messageMetadata: {
          sessionId: 's1',
          invocationId: 'inv-1',
          app: 'payments',
          status: 'paused',
          expiresAt: '1970-01-01T00:01:00.000Z',
        },
      },
    ]);
    const ended = mapper.map({
      type: 'ended',
      sessionId: 's1',
      invocationId: 'inv-1',
      reason: 'cancelled',
      message: 'x',
    });
    expect(ended).toEqual([
      {
        type: 'message-metadata',
        messageMetadata: expect.objectContaining({ status: 'cancelled' }),
      },
    ]);
  });
});
