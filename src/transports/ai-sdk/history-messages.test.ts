import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../runtime/queries/session-view.js';
import { historyMessages } from './history-messages.js';

const view = {
  meta: {
    sessionId: 's1',
    app: 'payments',
    userId: 'ann',
    status: 'idle',
    createdAt: 0,
    updatedAt: 0,
  },
  state: {},
  pendingApprovals: [],
  decidable: [],
} as unknown as SessionView;

describe('historyMessages', () => {
  it('shows an edited call with the input it ran with, and the model input beside it', async () => {
    const messages = await historyMessages(view, [
      {
        id: 'u1',
        text: 'Send $200 to Jiro',
        at: 0,
        events: [
          {
            type: 'tool-call',
            toolCallId: 'c1',
            toolName: 'process_payment',
            args: { amount: 150 },
            modelArgs: { amount: 200 },
          },
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'process_payment',
            output: { status: 'sent', amount: 150 },
          },
        ],
      },
    ]);
    expect(messages[1]?.parts).toContainEqual(
      expect.objectContaining({
        type: 'tool-process_payment',
        input: { amount: 150 },
        toolMetadata: { model_input: { amount: 200 } },
      }),
    );
  });
});
