import { createHoldpoint, hashArgs, type PendingOutcome, type RunOutcome } from 'holdpoint';
import { describe, expect, it } from 'vitest';
import payments, { paymentHint } from './app.js';
import { parsePaymentRequest } from './parse-payment-request.js';

const holdpoint = createHoldpoint({ apps: [payments], sweepIntervalSeconds: false });
/** Someone who may approve payments (not the one asking for them). */
const maria = { id: 'maria', roles: ['approver'] };

function paused(outcome: RunOutcome): PendingOutcome {
  if (outcome.status !== 'pending_approval') throw new Error(`not paused: ${outcome.status}`);
  return outcome;
}

describe('payments', () => {
  it('pauses every payment and sends it once approved', async () => {
    const pause = paused(await holdpoint.startRun({ query: 'Send $200 to Jiro' }, 'tester'));
    expect(pause.approvals).toEqual([
      expect.objectContaining({
        kind: 'confirmation',
        toolName: 'process_payment',
        args: { amount: 200, currency: 'USD', recipient: 'Jiro' },
        hint: 'Send 200 USD to Jiro?',
      }),
    ]);
    const done = await holdpoint.resumeRun({ sessionId: pause.sessionId, approved: true }, maria);
    expect(done.status).toBe('completed');
    const result = done.status === 'completed' ? done.result : '';
    expect(result).toMatch(/^Sent 200 USD to Jiro \(transaction TXN-[0-9A-F]{10}\)\.$/);
    const history = await holdpoint.getSessionMessages(pause.sessionId);
    const outputs = history.turns
      .flatMap((turn) => turn.events)
      .flatMap((event) => (event.type === 'tool-result' ? [event.output] : []));
    expect(outputs).toEqual([expect.objectContaining({ status: 'completed', amount: 200 })]);
  });

  it('lets only an approver decide, and never the person who asked approve it', async () => {
    const pause = paused(await holdpoint.startRun({ query: 'Send $200 to Jiro' }, 'tester'));
    const refused = (decidedBy: { id: string; roles: string[] }, approved = true) =>
      holdpoint.resumeRun({ sessionId: pause.sessionId, approved }, decidedBy).catch((e) => e);
    expect(await refused({ id: 'tester', roles: [] })).toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'not_an_approver' },
    });
    expect(await refused({ id: 'tester', roles: ['approver'] })).toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'requester' },
    });
    // The one who asked may still call it off.
    expect(await refused({ id: 'tester', roles: ['approver'] }, false)).toMatchObject({
      status: 'completed',
      result: 'The payment to Jiro was not sent: it was rejected.',
    });
  });

  it('understands the Japanese request', async () => {
    const pause = paused(
      await holdpoint.startRun({ query: '次郎さんに200ドル送金してください' }, 'tester'),
    );
    expect(pause.approvals[0]?.args).toEqual({ amount: 200, currency: 'USD', recipient: '次郎' });
  });

  it('does not pay when rejected', async () => {
    const pause = paused(await holdpoint.startRun({ query: 'Send $200 to Jiro' }, 'tester'));
    const done = await holdpoint.resumeRun({ sessionId: pause.sessionId, approved: false }, maria);
    expect(done).toMatchObject({
      status: 'completed',
      result: 'The payment to Jiro was not sent: it was rejected.',
    });
  });

  it('says why, when the approver rejects with a reason', async () => {
    const pause = paused(await holdpoint.startRun({ query: 'Send $200 to Jiro' }, 'tester'));
    const done = await holdpoint.decideApproval(
      {
        approvalId: pause.approvals[0]?.approvalId as string,
        approved: false,
        reason: 'the invoice was paid already',
      },
      maria,
    );
    expect(done).toMatchObject({
      status: 'completed',
      result: 'The payment to Jiro was not sent: the invoice was paid already.',
    });
  });

  it('lets an approver correct the payment; raising the amount needs a second approver', async () => {
    const lower = paused(await holdpoint.startRun({ query: 'Send $200 to Jiro' }, 'tester'));
    const seen = lower.approvals[0];
    const lowered = await holdpoint.decideApproval(
      {
        approvalId: seen?.approvalId as string,
        approved: true,
        argsHash: hashArgs(seen?.args),
        editedArgs: { amount: 150, recipient: 'Jiro', currency: 'USD' },
      },
      maria,
    );
    expect(lowered).toMatchObject({
      status: 'completed',
      result: expect.stringMatching(/^Sent 150 USD to Jiro /),
    });

    const raise = paused(await holdpoint.startRun({ query: 'Send $200 to Jiro' }, 'tester'));
    const asked = raise.approvals[0];
    const raised = { amount: 250, recipient: 'Jiro', currency: 'USD' };
    const first = await holdpoint.decideApproval(
      {
        approvalId: asked?.approvalId as string,
        approved: true,
        argsHash: hashArgs(asked?.args),
        editedArgs: raised,
      },
      maria,
    );
    expect(first.status).toBe('pending_approval');
    const second = await holdpoint.decideApproval(
      { approvalId: asked?.approvalId as string, approved: true, argsHash: hashArgs(raised) },
      { id: 'jun', roles: ['approver'] },
    );
    expect(second).toMatchObject({
      status: 'completed',
      result: expect.stringMatching(/^Sent 250 USD to Jiro /),
    });
  });

  it('needs a second approver for a change of currency: the same number may be far more money', async () => {
    const asked = paused(
      await holdpoint.startRun({ query: '花子さんに5000円を送金して' }, 'tester'),
    ).approvals[0];
    const first = await holdpoint.decideApproval(
      {
        approvalId: asked?.approvalId as string,
        approved: true,
        argsHash: hashArgs(asked?.args),
        editedArgs: { ...asked?.args, currency: 'USD' },
      },
      maria,
    );
    expect(first.status).toBe('pending_approval');
  });

  it('answers other text with help', async () => {
    const done = await holdpoint.startRun({ query: 'hello' }, 'tester');
    expect(done.status).toBe('completed');
    expect(done.status === 'completed' && done.result).toMatch(/Send \$200 to Jiro/);
  });

  it('formats the approval hint', () => {
    expect(paymentHint({ amount: 200, currency: 'USD', recipient: 'Jiro' })).toBe(
      'Send 200 USD to Jiro?',
    );
    expect(paymentHint({ amount: 12.5, recipient: 'Bob' })).toBe('Send 12.50 USD to Bob?');
  });
});

describe('parsePaymentRequest', () => {
  it.each([
    ['Send $200 to Jiro', 200, 'USD', 'Jiro'],
    ['send 50 EUR to Ana', 50, 'EUR', 'Ana'],
    ['Pay Bob 12.50 dollars', 12.5, 'USD', 'Bob'],
    ['次郎さんに200ドル送金してください', 200, 'USD', '次郎'],
    ['花子さんに5000円を送金して', 5000, 'JPY', '花子'],
    ['マリアに30ユーロ送金してください', 30, 'EUR', 'マリア'],
    ['次郎さんに２００ドル送金してください', 200, 'USD', '次郎'],
    ['transfer €1,000.50 to Mary Jane please', 1000.5, 'EUR', 'Mary Jane'],
  ])('%s', (text, amount, currency, recipient) => {
    expect(parsePaymentRequest(text)).toEqual({ amount, currency, recipient });
  });

  it.each(['hello', 'send 0 USD to Ana', 'Send 200 now to Jiro'])('%s → nothing', (text) => {
    expect(parsePaymentRequest(text)).toBeUndefined();
  });
});
