import { createHoldpoint, type PendingOutcome, type RunOutcome } from 'holdpoint';
import { describe, expect, it } from 'vitest';
import storyFlow from './app.js';

const holdpoint = createHoldpoint({ apps: [storyFlow], sweepIntervalSeconds: false });

function paused(outcome: RunOutcome): PendingOutcome {
  if (outcome.status !== 'pending_approval') throw new Error(`not paused: ${outcome.status}`);
  return outcome;
}

describe('story-flow', () => {
  it('writes, critiques, revises and checks the story, then waits for a person to publish it', async () => {
    const pause = paused(
      await holdpoint.startRun({ query: 'Write a story about a brave kitten' }, 'ann'),
    );
    expect(pause.approvals).toEqual([
      expect.objectContaining({
        toolName: 'publish_story',
        hint: 'Publish the story "a brave kitten"?',
        args: {
          title: 'a brave kitten',
          story: expect.stringMatching(/^Once upon a time there was a brave kitten\./),
        },
      }),
    ]);
    const { view } = await holdpoint.getSessionMessages(pause.sessionId);
    expect(view.state).toMatchObject({
      topic: 'Write a story about a brave kitten',
      criticism: 'No major issues.',
      grammar_suggestions: 'Grammar: no corrections needed.',
      tone_check_result: 'positive',
    });
    expect(String(view.state.current_story)).toMatch(
      /brave kitten.*In the end, the day closed gently\.$/,
    );
    const done = await holdpoint.resumeRun({ sessionId: pause.sessionId, approved: true }, 'ann');
    expect(done).toMatchObject({
      status: 'completed',
      result: expect.stringMatching(/^Published as STORY-[0-9A-F]{8}\.$/),
    });
  });

  it('regenerates a story whose tone is negative before it is published', async () => {
    const pause = paused(
      await holdpoint.startRun({ query: 'Write a story about a sad rainy day' }, 'ann'),
    );
    const { view } = await holdpoint.getSessionMessages(pause.sessionId);
    expect(view.state.tone_check_result).toBe('negative');
    expect(String(view.state.current_story)).toMatch(/everyone was laughing/);
  });

  it('does not publish a story the person rejects', async () => {
    const pause = paused(await holdpoint.startRun({ query: 'Write a story about a fox' }, 'ann'));
    const done = await holdpoint.resumeRun({ sessionId: pause.sessionId, approved: false }, 'ann');
    expect(done).toMatchObject({
      status: 'completed',
      result: expect.stringMatching(/^Not published/),
    });
  });

  it('says why, when the person rejects it with a reason', async () => {
    const pause = paused(await holdpoint.startRun({ query: 'Write a story about a fox' }, 'ann'));
    const done = await holdpoint.resumeRun(
      { sessionId: pause.sessionId, approved: false, reason: 'the ending is too sad' },
      'ann',
    );
    expect(done).toMatchObject({
      status: 'completed',
      result: expect.stringMatching(/Not published: the ending is too sad\.$/),
    });
  });
});
