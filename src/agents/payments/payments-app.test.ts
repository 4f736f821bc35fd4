import { describe, expect, it } from 'vitest';
import { AppHarness } from '../app-harness.test-support.js';
import { parsePaymentRequest } from './parse-payment-request.js';
import { createPaymentsApp } from './payments-app.js';

const CONFIRM = 'adk_request_confirmation';

describe('payments', () => {
  it('pauses every payment and sends it once approved', async () => {
    const harness = new AppHarness(createPaymentsApp);
    const [confirmation] = AppHarness.calls(await harness.say('Send $200 to Jiro'), CONFIRM);
    expect(confirmation?.args?.originalFunctionCall).toMatchObject({
      name: 'process_payment',
      args: { amount: 200, currency: 'USD', recipient: 'Jiro' },
    });
    expect(harness.effectRuns).toEqual([]);

    const done = await harness.answer(String(confirmation?.id), CONFIRM, { confirmed: true });
    const [result] = AppHarness.responses(done, 'process_payment');
    expect(result).toMatchObject({ status: 'completed', amount: 200, currency: 'USD' });
    expect(result?.transaction_id).toMatch(/^TXN-[0-9A-F]{10}$/);
    expect(harness.effectRuns).toHaveLength(1);
    expect(AppHarness.text(done)).toBe(
      `Sent 200 USD to Jiro (transaction ${String(result?.transaction_id)}).`,
    );
  });

  it('understands the Japanese request', async () => {
    const harness = new AppHarness(createPaymentsApp);
    const [confirmation] = AppHarness.calls(
      await harness.say('次郎さんに200ドル送金してください'),
      CONFIRM,
    );
    expect(confirmation?.args?.originalFunctionCall).toMatchObject({
      args: { amount: 200, currency: 'USD', recipient: '次郎' },
    });
  });

  it('does not pay when rejected', async () => {
    const harness = new AppHarness(createPaymentsApp);
    const [confirmation] = AppHarness.calls(await harness.say('Send $200 to Jiro'), CONFIRM);
    const done = await harness.answer(String(confirmation?.id), CONFIRM, { confirmed: false });
    expect(harness.effectRuns).toEqual([]);
    expect(AppHarness.text(done)).toBe('The payment to Jiro was not sent: it was rejected.');
  });

  it('answers other text with help', async () => {
    const harness = new AppHarness(createPaymentsApp);
    const events = await harness.say('hello');
    expect(AppHarness.calls(events, CONFIRM)).toEqual([]);
    expect(AppHarness.text(events)).toMatch(/Send \$200 to Jiro/);
  });

  it('formats the approval hint', () => {
    const app = createPaymentsApp({ model: 'rules', effects: { once: (_k, f) => f() } });
    const hint = app.hints.process_payment;
    expect(hint?.({ amount: 200, currency: 'USD', recipient: 'Jiro' })).toBe(
      'Send 200 USD to Jiro?',
    );
    expect(hint?.({ amount: 12.5, recipient: 'Bob' })).toBe('Send 12.50 USD to Bob?');
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
