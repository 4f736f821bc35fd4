import { createHoldpoint, type PendingOutcome, type RunOutcome } from 'holdpoint';
import { describe, expect, it } from 'vitest';
import picker from './app.js';

const holdpoint = createHoldpoint({ apps: [picker], sweepIntervalSeconds: false });

function paused(outcome: RunOutcome): PendingOutcome {
  if (outcome.status !== 'pending_approval') throw new Error(`not paused: ${outcome.status}`);
  return outcome;
}

/** Answers the pause's one input approval with `payload`. */
function answer(pause: PendingOutcome, payload: Record<string, unknown>): Promise<RunOutcome> {
  const approvalId = pause.approvals[0]?.approvalId ?? '';
  return holdpoint.resumeRun(
    { sessionId: pause.sessionId, decisions: [{ approvalId, approved: true, payload }] },
    'tester',
  );
}

describe('picker (seed 004)', () => {
  it('resumes two sequential long-running tools in a sub-agent', async () => {
    const select = paused(await holdpoint.startRun({ query: 'pick a fruit' }, 'tester'));
    expect(select.approvals).toEqual([
      expect.objectContaining({
        kind: 'input',
        toolName: 'select_item',
        args: { options: ['Apple', 'Banana', 'Cherry'], prompt: 'Pick a fruit' },
        hint: 'Pick a fruit',
      }),
    ]);
    const confirm = paused(await answer(select, { item: 'Apple' }));
    expect(confirm.approvals).toEqual([
      expect.objectContaining({ toolName: 'confirm_choice', args: { item: 'Apple' } }),
    ]);
    expect(confirm.approvals[0]?.hint).toBe('Confirm Apple?');
    expect(confirm.invocationId).toBe(select.invocationId);

    // The second resume is the one the ADK bug of seed 004 silently dropped.
    const done = await answer(confirm, { confirmed: true });
    expect(done).toMatchObject({
      status: 'completed',
      result: 'You picked Apple, and it is confirmed.',
    });
  });

  it('accepts other value shapes and reports an unconfirmed pick', async () => {
    const select = paused(await holdpoint.startRun({ query: 'help me choose' }, 'tester'));
    expect(select.approvals[0]?.args.options).toEqual(['Red', 'Green', 'Blue']);
    const confirm = paused(await answer(select, { value: 'Green' }));
    expect(confirm.approvals[0]?.args).toEqual({ item: 'Green' });
    const done = await answer(confirm, { confirmed: false });
    expect(done).toMatchObject({ result: 'You picked Green, but did not confirm it.' });
  });

  it('starts over on a second request in the same session', async () => {
    const first = paused(await holdpoint.startRun({ query: 'pick a fruit' }, 'tester'));
    const confirm = paused(await answer(first, { item: 'Cherry' }));
    await answer(confirm, { confirmed: true });

    const again = paused(
      await holdpoint.startRun(
        { query: 'pick one of tea, coffee or juice', sessionId: first.sessionId },
        'tester',
      ),
    );
    expect(again.approvals[0]?.args).toEqual({
      options: ['tea', 'coffee', 'juice'],
      prompt: 'Pick one',
    });
  });
});
