// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApprovalDialog } from './approval-dialog.js';
import type { ApprovalRequest } from './approval-request.js';
import { paymentRequest } from './payment-request.test-support.js';

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

function setup(request: ApprovalRequest = payment, extra: Partial<DialogProps> = {}) {
  const handlers = { onApprove: vi.fn(), onReject: vi.fn(), onClose: vi.fn() };
  const opener = document.createElement('button');
  opener.textContent = 'opener';
  document.body.append(opener);
  opener.focus();
  const view = render(<ApprovalDialog request={request} app="Payments" {...handlers} {...extra} />);
  return { ...handlers, opener, ...view };
}

type DialogProps = Parameters<typeof ApprovalDialog>[0];

/** The payments tool's parameters as the server presents them (`decision_policy.args_schema`). */
const PAYMENT_SCHEMA = {
  type: 'object',
  properties: {
    amount: { type: 'number', exclusiveMinimum: 0, description: 'The amount to send' },
    recipient: { type: 'string', minLength: 1 },
    currency: { type: 'string' },
    express: { type: 'boolean' },
    speed: { enum: ['normal', 'fast'] },
    memo: { type: 'object' },
  },
  required: ['amount', 'recipient'],
};

/** A payment whose amount and recipient an approver may edit (some edits need another). */
const editable: ApprovalRequest = {
  ...payment,
  argsHash: 'sha256:seen',
  policy: {
    editable: ['amount', 'recipient', 'express', 'speed', 'memo'],
    edit_may_need_approval: true,
    args_schema: PAYMENT_SCHEMA,
  },
};

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

  it('says who decides, and offers nothing to send to someone who may not', () => {
    const approvers = {
      owner: false,
      roles: ['approver'],
      users: [],
      quorum: 2,
      requester_may_approve: false,
    };
    setup({ ...payment, approvers, canDecide: true });
    expect(screen.getByText('Decided by 2 approvers (role approver).')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Approve' })).toHaveProperty('disabled', false);
    cleanup();

    const { onApprove, onReject } = setup({ ...payment, approvers, canDecide: false });
    expect(screen.getByText('Decided by 2 approvers (role approver); not by you.')).toBeTruthy();
    for (const name of ['Approve', 'Reject']) {
      const button = screen.getByRole('button', { name }) as HTMLButtonElement;
      expect(button.disabled, name).toBe(true);
      fireEvent.click(button);
    }
    expect(screen.getByLabelText(/Reason/)).toHaveProperty('disabled', true);
    expect(onApprove).not.toHaveBeenCalled();
    expect(onReject).not.toHaveBeenCalled();
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

describe('ApprovalDialog: rich decisions', () => {
  const input = (label: string | RegExp) => screen.getByLabelText(label) as HTMLInputElement;
  const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;

  it('offers Edit and Respond instead only where the tool’s policy allows them', () => {
    setup();
    expect(screen.queryByRole('button', { name: 'Edit' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Respond instead' })).toBeNull();
    cleanup();
    setup(editable);
    expect(button('Edit')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Respond instead' })).toBeNull();
  });

  it('Edit: a form from the schema, prefilled, only the editable fields enabled, focus in it', () => {
    setup(editable);
    fireEvent.click(button('Edit'));
    const form = screen.getByRole('group', { name: 'Arguments' });
    expect(input('Amount').value).toBe('200');
    expect(input('Amount').type).toBe('number');
    expect(input('Amount').disabled).toBe(false);
    expect(document.activeElement).toBe(input('Amount'));
    expect(input(/^Recipient/).value).toBe('Jiro');
    expect(input(/^Currency/).value).toBe('USD');
    expect(input(/^Currency/).disabled).toBe(true);
    expect(form.textContent).toContain('(cannot be changed)');
    expect(input(/^Express/).type).toBe('checkbox');
    expect(screen.getByLabelText(/^Speed/).tagName).toBe('SELECT');
    expect(screen.getByLabelText(/^Memo/).tagName).toBe('TEXTAREA');
    // The schema's description is tied to its field.
    expect(input('Amount').getAttribute('aria-describedby')).toBe(
      screen.getByText('The amount to send').id,
    );
    expect(screen.getByRole('dialog').textContent).toContain('Some changes need another approver');
    // No reason and no Approve/Reject while editing: Back and Approve with changes.
    expect(screen.queryByLabelText(/Reason/)).toBeNull();
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
  });

  it('Edit: shows what changes, then approves with the edited arguments', () => {
    const { onApprove } = setup(editable);
    fireEvent.click(button('Edit'));
    const approve = button('Approve with changes');
    expect(approve.disabled).toBe(true);
    expect(screen.getByRole('dialog').textContent).toContain('Nothing changed yet');
    fireEvent.change(input('Amount'), { target: { value: '150' } });
    fireEvent.change(input(/^Recipient/), { target: { value: 'Ana' } });
    const changes = screen.getByRole('list', { name: 'Your changes' });
    expect(Array.from(changes.querySelectorAll('li'), (li) => li.textContent)).toEqual([
      'Amount: 200 → 150',
      'Recipient: Jiro → Ana',
    ]);
    expect(approve.disabled).toBe(false);
    fireEvent.click(approve);
    expect(onApprove).toHaveBeenCalledWith(undefined, {
      editedArgs: { amount: 150, currency: 'USD', recipient: 'Ana' },
    });
  });

  it('Edit: the form’s own checks stop a bad value and say so beside the field', () => {
    const { onApprove } = setup(editable);
    fireEvent.click(button('Edit'));
    fireEvent.change(input('Amount'), { target: { value: '-5' } });
    const error = screen.getByText('More than 0.');
    expect(input('Amount').getAttribute('aria-invalid')).toBe('true');
    expect(input('Amount').getAttribute('aria-describedby')).toContain(error.id);
    fireEvent.click(button('Approve with changes'));
    expect(onApprove).not.toHaveBeenCalled();
  });

  it('Edit: the server’s VALIDATION_FAILED or EDIT_NOT_ALLOWED is shown next to the field it names', () => {
    const { rerender, onApprove, onReject, onClose } = setup(editable);
    fireEvent.click(button('Edit'));
    fireEvent.change(input(/^Recipient/), { target: { value: 'Nobody' } });
    rerender(
      <ApprovalDialog
        request={editable}
        app="Payments"
        onApprove={onApprove}
        onReject={onReject}
        onClose={onClose}
        fieldError={{ field: 'recipient', message: 'recipient: no such payee' }}
      />,
    );
    const error = screen.getByText('recipient: no such payee');
    expect(input(/^Recipient/).getAttribute('aria-describedby')).toContain(error.id);
    expect(input(/^Recipient/).getAttribute('aria-invalid')).toBe('true');
  });

  it('Back returns to the call with focus on Edit; Escape still closes', () => {
    const { onClose } = setup(editable);
    fireEvent.click(button('Edit'));
    fireEvent.click(button('Back'));
    expect(document.activeElement).toBe(button('Edit'));
    expect(button('Approve')).toBeTruthy();
    fireEvent.click(button('Edit'));
    key('Escape');
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('Respond instead: a simple object schema is a form; its answer is sent as the response', () => {
    const { onApprove } = setup({
      ...payment,
      toolName: 'lookup',
      args: { query: 'weather' },
      policy: {
        respond: true,
        respond_schema: {
          type: 'object',
          properties: { answer: { type: 'string', minLength: 1 } },
          required: ['answer'],
        },
      },
    });
    fireEvent.click(button('Respond instead'));
    expect(screen.getByRole('dialog').textContent).toContain(
      'Your answer becomes the tool’s result, and the tool does not run.',
    );
    expect(document.activeElement).toBe(input('Answer'));
    fireEvent.click(button('Send response'));
    expect(onApprove).not.toHaveBeenCalled();
    expect(screen.getByText('Enter a value.')).toBeTruthy();
    fireEvent.change(input('Answer'), { target: { value: 'Sunny' } });
    fireEvent.click(button('Send response'));
    expect(onApprove).toHaveBeenCalledWith(undefined, { response: { answer: 'Sunny' } });
  });

  it('Respond instead: the server’s complaint is shown beside the response field it names', () => {
    const lookup: ApprovalRequest = {
      ...payment,
      policy: {
        respond: true,
        respond_schema: { type: 'object', properties: { answer: { type: 'string' } } },
      },
    };
    const { rerender, onApprove, onReject, onClose } = setup(lookup);
    fireEvent.click(button('Respond instead'));
    rerender(
      <ApprovalDialog
        request={lookup}
        onApprove={onApprove}
        onReject={onReject}
        onClose={onClose}
        fieldError={{ field: 'response.answer', message: 'answer: too long' }}
      />,
    );
    const error = screen.getByText('answer: too long');
    expect(input(/^Answer/).getAttribute('aria-describedby')).toContain(error.id);
  });

  it('Respond instead: without a schema, JSON when it reads as JSON, else the text', () => {
    const { onApprove } = setup({ ...payment, policy: { respond: true } });
    fireEvent.click(button('Respond instead'));
    const text = screen.getByLabelText(/^Response/);
    fireEvent.change(text, { target: { value: '{"paid": false}' } });
    fireEvent.click(button('Send response'));
    expect(onApprove).toHaveBeenLastCalledWith(undefined, { response: { paid: false } });
    fireEvent.change(text, { target: { value: 'not today' } });
    fireEvent.click(button('Send response'));
    expect(onApprove).toHaveBeenLastCalledWith(undefined, { response: 'not today' });
  });

  it('Respond instead: a non-object schema wants JSON', () => {
    const { onApprove } = setup({
      ...payment,
      policy: { respond: true, respond_schema: { type: 'array', items: { type: 'string' } } },
    });
    fireEvent.click(button('Respond instead'));
    fireEvent.change(screen.getByLabelText(/^Response/), { target: { value: 'a, b' } });
    fireEvent.click(button('Send response'));
    expect(onApprove).not.toHaveBeenCalled();
    expect(screen.getByText('Not valid JSON.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText(/^Response/), { target: { value: '["a","b"]' } });
    fireEvent.click(button('Send response'));
    expect(onApprove).toHaveBeenCalledWith(undefined, { response: ['a', 'b'] });
  });

  it('Grant: also allow the tool for this conversation or the asker for N hours, at most the policy’s', () => {
    const { onApprove } = setup(
      { ...payment, policy: { grants: { scopes: ['session', 'user'], max_hours: 8 } } },
      { owner: 'ann', me: 'maria' },
    );
    const group = screen.getByRole('group', { name: 'Also allow this tool for…' });
    expect(Array.from(group.querySelectorAll('label'), (l) => l.textContent)).toEqual([
      'Just this call',
      'This conversation',
      'ann, in any conversation',
    ]);
    fireEvent.click(screen.getByRole('radio', { name: 'ann, in any conversation' }));
    const hours = screen.getByLabelText(/For how many hours/);
    fireEvent.change(hours, { target: { value: '12' } });
    expect(screen.getByText('At most 8 hours.')).toBeTruthy();
    fireEvent.click(button('Approve'));
    expect(onApprove).not.toHaveBeenCalled();
    fireEvent.change(hours, { target: { value: '4' } });
    fireEvent.click(button('Approve'));
    expect(onApprove).toHaveBeenCalledWith(undefined, { grant: { scope: 'user', hours: 4 } });
  });

  it('Grant: with no choice, a plain approval; a policy without grants offers none', () => {
    const { onApprove } = setup({
      ...payment,
      policy: { grants: { scopes: ['session'], max_hours: 1 } },
    });
    expect(screen.queryByRole('radio', { name: /any conversation/ })).toBeNull();
    fireEvent.click(button('Approve'));
    expect(onApprove).toHaveBeenCalledWith(undefined);
    cleanup();
    setup(editable);
    expect(screen.queryByRole('group', { name: 'Also allow this tool for…' })).toBeNull();
  });

  it('an edit in force: shows what is approved, the model’s call, and who changed it', () => {
    setup({
      ...editable,
      args: { amount: 300, currency: 'USD', recipient: 'Jiro' },
      modelArgs: { amount: 200, currency: 'USD', recipient: 'Jiro' },
      editedBy: 'maria',
    });
    const edited = screen.getByRole('region', { name: 'Changed by maria' });
    expect(screen.getByRole('list', { name: 'Changes to the model’s call' }).textContent).toBe(
      'Amount: 200 → 300',
    );
    expect(edited.textContent).toContain('The model’s call');
    const details = screen.getByRole('region', { name: 'Details' });
    expect(within(details).getByText('Amount').nextElementSibling?.textContent).toBe('300');
  });

  it('an input request offers none of these', () => {
    setup({ ...pick, policy: { editable: true, respond: true } });
    expect(screen.queryByRole('button', { name: 'Edit' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Respond instead' })).toBeNull();
  });
});
