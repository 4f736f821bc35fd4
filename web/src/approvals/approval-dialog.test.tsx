// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApprovalDialog } from './approval-dialog';
import type { ApprovalRequest } from './approval-request';
import { paymentRequest } from './payment-request.test-support';

const NOW = Date.parse('2026-11-21T23:50:00.000Z');

const payment = paymentRequest(new Date(NOW + 4 * 60_000 + 5_000).toISOString());

const pick: ApprovalRequest = {
  approvalId: 'call-2',
  kind: 'input',
  toolName: 'select_item',
  toolCallId: 'call-2',
  args: { options: ['Apple', 'Banana'], prompt: 'Pick a fruit' },
  hint: 'Pick a fruit',
  options: ['Apple', 'Banana'],
  expiresAt: new Date(NOW + 60 * 60_000).toISOString(),
};

function setup(request: ApprovalRequest = payment) {
  const handlers = { onApprove: vi.fn(), onReject: vi.fn(), onClose: vi.fn() };
  const opener = document.createElement('button');
  opener.textContent = 'opener';
  document.body.append(opener);
  opener.focus();
  const view = render(<ApprovalDialog request={request} app="Payments" {...handlers} />);
  return { ...handlers, opener, ...view };
}

const key = (k: string, init: KeyboardEventInit = {}) =>
  fireEvent.keyDown(document.activeElement ?? document.body, { key: k, ...init });

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
  vi.setSystemTime(NOW);
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  document.body.innerHTML = '';
});

describe('ApprovalDialog', () => {
  it('is a labelled modal dialog with the tool, its arguments, the hint and the time left', () => {
    setup();
    const dialog = screen.getByRole('dialog', { name: 'Process payment' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(dialog.textContent).toContain('process_payment');
    expect(screen.getByText('Send 200 USD to Jiro?').id).toBe(
      dialog.getAttribute('aria-describedby'),
    );
    expect(screen.getByText('Recipient').nextElementSibling?.textContent).toBe('Jiro');
    expect(screen.getByText('Amount').nextElementSibling?.textContent).toBe('200');
    expect(dialog.textContent).toContain('Expires in 4:05');
    act(() => {
      vi.advanceTimersByTime(2000);
    });
    expect(dialog.textContent).toContain('Expires in 4:03');
  });

  it('Escape closes without deciding, and focus returns to the opener', () => {
    const { onApprove, onReject, onClose, opener, unmount } = setup();
    key('Escape');
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(onApprove).not.toHaveBeenCalled();
    expect(onReject).not.toHaveBeenCalled();
    unmount();
    expect(document.activeElement).toBe(opener);
  });

  it('traps focus: starts on Approve, Tab and Shift+Tab wrap inside the dialog', () => {
    setup();
    const dialog = screen.getByRole('dialog');
    const approve = screen.getByRole('button', { name: 'Approve' });
    const close = screen.getByRole('button', { name: 'Close — decide later' });
    expect(document.activeElement).toBe(approve);
    key('Tab');
    expect(document.activeElement).toBe(close);
    key('Tab', { shiftKey: true });
    expect(document.activeElement).toBe(approve);
    // From anywhere outside, Tab comes back in.
    (document.body.querySelector('button') as HTMLButtonElement).focus();
    key('Tab');
    expect(dialog.contains(document.activeElement)).toBe(true);
  });

  it('Approve and Reject call back; Reject carries the reason', () => {
    const { onApprove, onReject } = setup();
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));
    expect(onApprove).toHaveBeenCalledWith(undefined);
    fireEvent.change(screen.getByLabelText(/Reason/), { target: { value: '  wrong recipient ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Reject' }));
    expect(onReject).toHaveBeenCalledWith('wrong recipient');
  });

  it('Reject without a reason sends none', () => {
    const { onReject } = setup();
    fireEvent.click(screen.getByRole('button', { name: 'Reject' }));
    expect(onReject).toHaveBeenCalledWith(undefined);
  });

  it('an input request shows its choices and submits the chosen value', () => {
    const { onApprove } = setup(pick);
    expect(screen.getByRole('dialog').textContent).toContain('Input needed');
    const approve = screen.getByRole('button', { name: 'Submit' }) as HTMLButtonElement;
    expect(approve.disabled).toBe(true);
    expect(document.activeElement).toBe(screen.getByRole('radio', { name: 'Apple' }));
    fireEvent.click(screen.getByRole('radio', { name: 'Banana' }));
    expect(approve.disabled).toBe(false);
    fireEvent.click(approve);
    expect(onApprove).toHaveBeenCalledWith('Banana');
  });

  it('a pick of several is answered with the options checked, none included', () => {
    const facts = ['f1: Rust has ownership.', 'f2: Borrowing is checked.', 'f3: Lifetimes.'];
    const { onApprove } = setup({
      ...pick,
      toolName: 'pick_facts_to_save',
      args: { options: facts, multiple: true },
      options: facts,
      multiple: true,
    });
    expect(screen.getByRole('group', { name: 'Choose any' })).toBeTruthy();
    const approve = screen.getByRole('button', { name: 'Submit' }) as HTMLButtonElement;
    expect(approve.disabled).toBe(false);
    fireEvent.click(screen.getByRole('checkbox', { name: facts[2] }));
    fireEvent.click(screen.getByRole('checkbox', { name: facts[0] }));
    fireEvent.click(screen.getByRole('checkbox', { name: facts[2] }));
    fireEvent.click(approve);
    expect(onApprove).toHaveBeenCalledWith([facts[0]]);
  });

  it('a free-text answer is sent instead of a choice once typed', () => {
    const { onApprove } = setup({
      ...pick,
      toolName: 'review_domain_draft',
      args: { options: ['Approve', 'Cancel'], free_text: true },
      options: ['Approve', 'Cancel'],
      freeText: true,
    });
    const approve = screen.getByRole('button', { name: 'Submit' }) as HTMLButtonElement;
    expect(approve.disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Or type your answer'), {
      target: { value: '  Rust: the language  ' },
    });
    expect(approve.disabled).toBe(false);
    fireEvent.click(screen.getByRole('radio', { name: 'Approve' }));
    fireEvent.click(approve);
    expect(onApprove).toHaveBeenCalledWith('Rust: the language');
  });

  it('an input is answered with Submit and Cancel, never Approve or Reject, and asks no reason', () => {
    const { onApprove, onReject } = setup(pick);
    const dialog = screen.getByRole('dialog', { name: 'Select item' });
    expect(dialog.textContent).toContain('Input needed');
    expect(dialog.textContent).toContain('Pick a fruit');
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Reject' })).toBeNull();
    expect(screen.queryByLabelText(/Reason/)).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onReject).toHaveBeenCalledWith(undefined);
    fireEvent.click(screen.getByRole('radio', { name: 'Apple' }));
    fireEvent.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onApprove).toHaveBeenCalledWith('Apple');
  });

  it('a yes/no input is answered Yes or No', () => {
    const confirm: ApprovalRequest = {
      ...pick,
      approvalId: 'call-3',
      toolCallId: 'call-3',
      toolName: 'confirm_choice',
      args: { item: 'Banana' },
      hint: 'Confirm Banana?',
      options: undefined,
    };
    const { onApprove, onReject } = setup(confirm);
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Yes' }));
    expect(onApprove).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByRole('button', { name: 'No' }));
    expect(onReject).toHaveBeenCalledTimes(1);
  });

  it('an expired pause cannot be decided', () => {
    setup({ ...payment, expiresAt: new Date(NOW - 1000).toISOString() });
    expect(screen.getByRole('dialog').textContent).toContain('This pause has expired');
    expect((screen.getByRole('button', { name: 'Approve' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    expect((screen.getByRole('button', { name: 'Reject' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
  });
});
