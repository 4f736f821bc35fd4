import { describe, expect, it } from 'vitest';
import { decisionSource, decisionVerb } from './decision-source.js';

const decision = {
  approval_id: 'a1',
  approved: true,
  decided_by: 'maria',
  at: '2026-11-26T09:00:00Z',
};

describe('where a decision came from', () => {
  it('says the channel and the person a delegate decided for, nothing for the API or this UI', () => {
    expect(decisionSource(decision)).toBe('');
    expect(decisionSource({ ...decision, channel: 'chat' })).toBe('');
    expect(decisionSource({ ...decision, channel: 'a2a' })).toBe(' via A2A');
    expect(decisionSource({ ...decision, channel: 'slack' })).toBe(' via Slack');
    expect(decisionSource({ ...decision, channel: 'link' })).toBe(' via a decision link');
    expect(decisionSource({ ...decision, channel: 'teams' })).toBe(' via teams');
    expect(decisionSource({ ...decision, channel: 'email-link', on_behalf_of: 'ann' })).toBe(
      ' for ann via an email link',
    );
  });
});

describe('what a decision did', () => {
  it('says an edit, an answer in the tool’s place, or a plain yes or no', () => {
    expect(decisionVerb(decision, false)).toBe('Approved');
    expect(decisionVerb({ ...decision, approved: false }, false)).toBe('Rejected');
    expect(decisionVerb({ ...decision, edited_args_hash: 'sha256:e' }, false)).toBe(
      'Approved with changes',
    );
    expect(decisionVerb({ ...decision, edited_args: { amount: 1 } }, false)).toBe(
      'Approved with changes',
    );
    expect(decisionVerb({ ...decision, responded: true }, false)).toBe('Answered in its place');
    expect(decisionVerb({ ...decision, response: 'sunny' }, false)).toBe('Answered in its place');
    expect(decisionVerb(decision, true)).toBe('Answered');
    expect(decisionVerb({ ...decision, approved: false }, true)).toBe('Declined');
  });
});
