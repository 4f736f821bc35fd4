// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { InboxApproval } from '../client/api-types.js';
import { ApprovalCard } from './approval-card.js';

const NOW = Date.UTC(2026, 11, 7, 12, 0, 0);

const approval = {
  approval_id: 'a1',
  kind: 'confirmation',
  tool_name: 'process_payment',
  tool_call_id: 'call-1',
  args: { amount: 200, recipient: 'Jiro' },
  hint: 'Send 200 USD to Jiro?',
  args_hash: 'sha256:x',
  approvers: {
    owner: false,
    roles: ['approver'],
    users: [],
    quorum: 1,
    requester_may_approve: false,
  },
  created_at: new Date(NOW - 60_000).toISOString(),
  expires_at: new Date(NOW + 59 * 60_000).toISOString(),
  can_decide: true,
  session_id: 's1',
  invocation_id: 'i1',
  app: 'payments',
  user_id: 'ann',
} as unknown as InboxApproval;

afterEach(cleanup);

describe('ApprovalCard', () => {
  it('counts down while the approval waits', () => {
    render(<ApprovalCard approval={approval} now={NOW} onReview={() => {}} />);
    expect(screen.getByText(/Expires in/).textContent).toBe('Expires in 59 min');
  });

  it('says whom it asks', () => {
    render(<ApprovalCard approval={approval} now={NOW} onReview={() => {}} />);
    expect(screen.getByText('asks role approver')).toBeTruthy();
  });

  it('says what became of a decided approval, with no countdown', () => {
    render(
      <ApprovalCard
        approval={approval}
        now={NOW}
        outcome={{ state: 'approved', detail: 'The run goes on.' }}
        onReview={() => {}}
      />,
    );
    expect(screen.getByRole('status').textContent).toContain('Approved');
    expect(screen.queryByText(/Expires in/)).toBeNull();
  });
});
