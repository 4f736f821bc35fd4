// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { ApprovalRequest } from 'holdpoint/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { paymentRequest } from '../../../react/src/approvals/payment-request.test-support.js';
import { ToolCard } from './tool-card';
import { WaitingPanel } from './waiting-panel';

const payment: ApprovalRequest = {
  ...paymentRequest(new Date(Date.now() + 3_600_000).toISOString()),
  approvers: {
    owner: false,
    roles: ['approver'],
    users: [],
    quorum: 2,
    requester_may_approve: false,
  },
  canDecide: false,
};

const vote = {
  approval_id: 'adk-1',
  approved: true,
  decided_by: 'maria',
  at: '2026-11-21T10:42:00.000Z',
};

afterEach(cleanup);

describe('WaitingPanel', () => {
  it('tells the requester whom the payment waits for, who has been asked and the votes, and offers Cancel', () => {
    const onCancel = vi.fn();
    render(
      <WaitingPanel
        request={payment}
        count={1}
        owner="ann"
        user="ann"
        votes={[vote]}
        busy={false}
        onCancel={onCancel}
      />,
    );
    const panel = screen.getByRole('region', { name: 'Waiting for an approver' });
    expect(panel.textContent).toContain('Waiting for 2 approvers (role approver)');
    expect(panel.textContent).toContain('Asked: role approver · 1 of 2 approved');
    expect(panel.textContent).toContain('You asked for it, so someone else must approve it.');
    expect(screen.getByRole('list', { name: 'Decided so far' }).textContent).toMatch(
      /^Approved by maria · /,
    );
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel request' }));
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('shows an approver’s edit in force: what changed in the call, and who changed it', () => {
    render(
      <WaitingPanel
        request={{
          ...payment,
          args: { ...payment.args, amount: 300 },
          modelArgs: payment.args,
          editedBy: 'maria',
        }}
        count={1}
        owner="ann"
        user="ann"
        votes={[{ ...vote, edited_args_hash: 'sha256:edit' }]}
        busy={false}
        onCancel={() => undefined}
      />,
    );
    const panel = screen.getByRole('region', { name: 'Waiting for an approver' });
    expect(panel.textContent).toContain('Changed by maria:');
    expect(screen.getByRole('list', { name: 'Changes to the call' }).textContent).toBe(
      'Amount: 200 → 300',
    );
    expect(screen.getByRole('list', { name: 'Decided so far' }).textContent).toMatch(
      /^Approved with changes by maria · /,
    );
  });

  it('offers no Cancel to someone who does not own the session', () => {
    render(
      <WaitingPanel
        request={payment}
        count={1}
        owner="ann"
        user="maria"
        votes={[]}
        busy={false}
        onCancel={() => undefined}
      />,
    );
    expect(screen.queryByRole('button', { name: 'Cancel request' })).toBeNull();
    expect(screen.getByRole('region').textContent).not.toContain('You asked for it');
  });
});

describe('ToolCard', () => {
  const part = {
    toolName: 'process_payment',
    toolCallId: 'call-1',
    state: 'output-available',
    input: payment.args,
    output: { status: 'completed' },
    approval: { id: 'adk-1', approved: true },
  };

  it('a decided card names who decided, and when', () => {
    render(<ToolCard part={part} decisions={[vote]} onReview={() => undefined} />);
    const decided = screen.getByRole('list', { name: 'Decided by' });
    expect(decided.textContent).toMatch(/^Approved by maria · /);
    expect(decided.querySelector('time')?.getAttribute('datetime')).toBe(vote.at);
  });

  it('a card approved with changes says so', () => {
    const edited = { ...vote, edited_args: { amount: 150 } };
    render(<ToolCard part={part} decisions={[edited]} onReview={() => undefined} />);
    const decided = screen.getByRole('list', { name: 'Decided by' });
    expect(decided.textContent).toMatch(/^Approved with changes by maria · /);
  });

  it('an edited call shows the arguments it ran with and what changed in the model’s', () => {
    const ran = {
      ...part,
      input: { ...payment.args, amount: 150 },
      toolMetadata: { model_input: payment.args },
    };
    render(<ToolCard part={ran} decisions={[]} onReview={() => undefined} />);
    expect(screen.getByText('Amount').nextElementSibling?.textContent).toBe('150');
    expect(screen.getByRole('list', { name: 'Changes to the model’s call' }).textContent).toBe(
      'Amount: 200 → 150',
    );
    cleanup();
    // Live, the stream shows the model's call: an edit decided in this tab says what ran.
    const edited = { ...vote, edited_args: { ...payment.args, amount: 120 } };
    render(<ToolCard part={part} decisions={[edited]} onReview={() => undefined} />);
    expect(screen.getByText('Amount').nextElementSibling?.textContent).toBe('120');
    expect(screen.getByRole('list', { name: 'Changes to the model’s call' }).textContent).toBe(
      'Amount: 200 → 120',
    );
  });

  it('a card decided through another channel says which', () => {
    const bySlack = { ...vote, channel: 'slack' };
    render(<ToolCard part={part} decisions={[bySlack]} onReview={() => undefined} />);
    const decided = screen.getByRole('list', { name: 'Decided by' });
    expect(decided.textContent).toMatch(/^Approved by maria via Slack · /);
  });

  it('a call waiting for others says so, with no Review', () => {
    const asked = { ...part, state: 'approval-requested', approval: { id: 'adk-1' } };
    render(<ToolCard part={asked} waiting="others" decisions={[]} onReview={() => undefined} />);
    expect(screen.getByText('Waiting for an approver')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Review' })).toBeNull();
  });
});
